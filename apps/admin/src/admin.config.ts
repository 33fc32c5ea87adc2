import { messagingConfigSpec } from '@svc/messaging';
import { DEFAULT_DATABASE_URL } from '@svc/persistence';
import { DEFAULT_APP_URL, optional, secret, serviceUrl, url } from '@svc/platform';

export const adminConfigSpec = {
  ...messagingConfigSpec,
  INTERNAL_AUTH_SECRET: optional(
    secret(32, { orEmpty: true }),
    "The apps' INTERNAL_AUTH_SECRET: needed only by the commands that call a service (`widget origins`, `trigger`, `user create`, `user remove`, `whatsapp connect`). On a development machine it is read from `.local/dev-settings.env`, which `npm start` writes; in production set it to the apps' value.",
  ),
  CHAT_URL: serviceUrl(
    'chat',
    'The chat (widget, visitor API): the gateway routes `/chat/*` there unchanged, without key checks; `admin widget origins` writes its widget settings there.',
  ),
  EVENTS_API_URL: serviceUrl('events-api', 'events-api (the event feed); `admin trigger` asks it for the feed id the event got.'),
  CONSOLE_URL: serviceUrl('console', 'The console: `admin user create` and `user remove` manage team members there.'),
  DATABASE_URL: url({ default: DEFAULT_DATABASE_URL, desc: 'PostgreSQL (the admin command line writes schema `gateway`).' }),
  APP_URL: url({
    default: DEFAULT_APP_URL,
    desc: 'Address of the web application, used in the sample conversation links of `admin trigger`.',
  }),
};
