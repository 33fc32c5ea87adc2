import { messagingConfigSpec } from '@svc/messaging';
import { DEFAULT_DATABASE_URL } from '@svc/persistence';
import { internalAuthConfigSpec, url } from '@svc/platform';

export const adminConfigSpec = {
  ...messagingConfigSpec,
  ...internalAuthConfigSpec,
  CHAT_URL: url({ default: 'http://127.0.0.1:3006', desc: 'The chat (widget, visitor API): the gateway routes `/chat/*` there unchanged, without key checks; `admin widget origins` writes its widget settings there.' }),
  DATABASE_URL: url({ default: DEFAULT_DATABASE_URL, desc: 'PostgreSQL (the admin command line writes schema `gateway`).' }),
  APP_URL: url({ default: 'http://localhost:3000', desc: 'Address of the web application, used in the sample conversation links of `admin trigger`.' }),
};
