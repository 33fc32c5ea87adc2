import { DEFAULT_DATABASE_URL } from '@svc/persistence';
import { url } from '@svc/platform';

export const adminConfigSpec = {
  DATABASE_URL: url({ default: DEFAULT_DATABASE_URL, desc: 'PostgreSQL (the admin command line writes schema `gateway`).' }),
};
