import { databaseConfigSpec } from '@svc/persistence';
import { Config, count, DEFAULT_APP_URL, callerConfigSpec, serviceUrl, url } from '@svc/platform';

export const consoleConfigSpec = {
  ...callerConfigSpec(
    'console',
    'Port the app listens on (the console: 3007; team members reach it at `{APP_URL}/` through the gateway or the Ingress).',
  ),
  ...databaseConfigSpec(
    'the console owns schema `console` (people, their memberships and roles, sessions, set-password links, sign-in counters)',
  ),
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
    desc: 'Failed sign-ins allowed per email address and client (an IPv4 address, or the /64 of an IPv6 address; and 4× that per client) in SIGN_IN_WINDOW_S; each attempt is counted before its password is checked, further attempts get 429 with Retry-After.',
  }),
  SIGN_IN_EMAIL_FAILURES: count({
    default: 100,
    desc: 'Failed sign-ins allowed per email address from all client addresses together in SIGN_IN_WINDOW_S, except from an address the member signed in from in the last 30 days.',
  }),
  SIGN_IN_WINDOW_S: count({ default: 900, desc: 'The window (seconds) the sign-in limits count in.' }),
  PASSWORD_HASHES_IN_FLIGHT: count({
    default: 4,
    desc: 'Password hashes (argon2id, 64 MiB each) computed at once by this process, for sign-ins and set-password together; more wait their turn.',
  }),
  PASSWORD_HASH_WAIT_MS: count({
    default: 2_000,
    desc: 'How long a sign-in waits for a turn to hash (PASSWORD_HASHES_IN_FLIGHT) before it is answered 503 with Retry-After: 1.',
  }),
};

export type ConsoleConfig = Config<typeof consoleConfigSpec>;
/** The settings, validated at start: `@Inject(CONSOLE_CONFIG) config: ConsoleConfig` (or a Pick of it). */
export const CONSOLE_CONFIG = Symbol('CONSOLE_CONFIG');
