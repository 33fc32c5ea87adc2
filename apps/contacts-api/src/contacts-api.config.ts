import { messagingConfigSpec, outboxConfigSpec } from '@svc/messaging';
import { DEFAULT_DATABASE_URL } from '@svc/persistence';
import { baseConfigSpec, bool, Config, count, internalAuthConfigSpec, port, url } from '@svc/platform';

export const contactsApiConfigSpec = {
  ...baseConfigSpec,
  ...internalAuthConfigSpec,
  ...messagingConfigSpec,
  ...outboxConfigSpec,
  PORT: port({ default: 3001, desc: 'Port of contacts-api (reached through the gateway).' }),
  DATABASE_URL: url({ default: DEFAULT_DATABASE_URL, desc: 'PostgreSQL; contacts-api owns schema `contacts` (customers, consents).' }),
  DATABASE_POOL_SIZE: count({ default: 10, desc: 'Connections in the PostgreSQL pool.' }),
  MIGRATE_ON_START: bool({ default: true, desc: 'Apply pending migrations at start (they also run as `npm run migrate`).' }),
};

export type ContactsApiConfig = Config<typeof contactsApiConfigSpec>;
