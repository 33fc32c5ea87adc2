import { messagingConfigSpec } from '@svc/messaging';
import { DEFAULT_DATABASE_URL } from '@svc/persistence';
import { DEFAULT_APP_URL, optional, secret, serviceUrl, url } from '@svc/platform';

export const adminConfigSpec = {
  ...messagingConfigSpec,
  ADMIN_INTERNAL_KEY: optional(
    secret(43, { orEmpty: true }),
    "The admin command line's own Ed25519 private key (a 32-byte seed, base64), whose public key the apps list in INTERNAL_PUBLIC_KEYS as `admin:…`: needed only by the commands that call a service (`widget origins`, `trigger`, `user create`, `user remove`, `whatsapp connect`). On a development machine it is read from `.local/dev-settings.env`, which `npm start` writes.",
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
