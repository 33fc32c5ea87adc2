import { databaseConfigSpec } from '@svc/persistence';
import { Config, count, DEFAULT_APP_URL, serviceConfigSpec, serviceUrl, url } from '@svc/platform';

export const consoleConfigSpec = {
  ...serviceConfigSpec(
    'console',
    'Port the app listens on (the console: 3007; team members reach it at `{APP_URL}/` through the gateway or the Ingress).',
  ),
  ...databaseConfigSpec('the console owns schema `console` (team members and roles, sessions, set-password links, sign-in counters)'),
  APP_URL: url({
    default: DEFAULT_APP_URL,
    desc: 'Address of the web application: set-password links (`{APP_URL}/set-password?token=…`); the session cookie is `Secure` when it is https.',
  }),
  GATEWAY_URL: serviceUrl('gateway', 'The gateway, which owns accounts and API keys: the console lists, creates and revokes keys there.'),
  CHAT_URL: serviceUrl('chat', 'The chat: inbox, replies, bookings, analytics, widget settings.'),
  CONTACTS_API_URL: serviceUrl('contacts-api', 'contacts-api (customers, consents, Withdraw).'),
  KNOWLEDGE_API_URL: serviceUrl('knowledge-api', 'knowledge-api (the knowledge list).'),
  WEBHOOK_DISPATCHER_URL: serviceUrl('webhook-dispatcher', 'webhook-dispatcher (webhook endpoints and deliveries).'),
  INTERNAL_TIMEOUT_MS: count({ default: 10_000, desc: 'How long the console waits for another service before answering 503.' }),
  SESSION_TTL_HOURS: count({ default: 168, desc: 'How long a sign-in lasts (hours) before the member signs in again.' }),
  SIGN_IN_FAILURES: count({
    default: 5,
    desc: 'Failed sign-ins allowed per email address and client address (and 4× that per client address) in SIGN_IN_WINDOW_S; each attempt is counted before its password is checked, further attempts get 429 with Retry-After.',
  }),
  SIGN_IN_EMAIL_FAILURES: count({
    default: 100,
    desc: 'Failed sign-ins allowed per email address from all client addresses together in SIGN_IN_WINDOW_S, except from an address the member signed in from in the last 30 days.',
  }),
  SIGN_IN_WINDOW_S: count({ default: 900, desc: 'The window (seconds) the sign-in limits count in.' }),
};

export type ConsoleConfig = Config<typeof consoleConfigSpec>;
