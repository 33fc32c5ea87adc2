import { DEFAULT_DATABASE_URL } from '@svc/persistence';
import { baseConfigSpec, bool, Config, count, internalAuthConfigSpec, millis, port, str, url } from '@svc/platform';
import { makeValidator } from 'envalid';
import { isIP } from 'node:net';

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a CIDR range, or one of proxy-addr's names for a range. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/**
 * Fastify's `trustProxy` (see trustProxyOption): empty trusts nobody (the client is the peer of the TCP connection); a
 * whole number trusts that many proxies in front; otherwise the proxies' addresses and ranges.
 * Trusting every address would let any client pick the address it is throttled by.
 */
export const trustProxy = makeValidator<number | string>((value) => {
  const setting = value.trim();
  if (setting === '') return '';
  if (/^\d+$/.test(setting)) return Number(setting);
  const entries = setting.split(',').map((entry) => entry.trim());
  const bad = entries.filter((entry) => !isProxyAddress(entry));
  if (bad.length > 0) throw new Error(`must be empty, a number of proxies, or addresses and CIDR ranges (loopback, linklocal, uniquelocal allowed); not ${bad.join(', ')}`);
  return entries.join(',');
});

export const gatewayConfigSpec = {
  ...baseConfigSpec,
  ...internalAuthConfigSpec,
  PORT: port({ default: 3000, desc: 'Port of the public API.' }),
  DATABASE_URL: url({ default: DEFAULT_DATABASE_URL, desc: 'PostgreSQL; the gateway owns schema `gateway` (accounts, keys).' }),
  DATABASE_POOL_SIZE: count({ default: 10, desc: 'Connections in the PostgreSQL pool.' }),
  MIGRATE_ON_START: bool({ default: true, desc: 'Apply pending migrations at start (they also run as `npm run migrate`).' }),
  REDIS_URL: url({ default: 'redis://127.0.0.1:6379', desc: 'Redis, for the write limits shared by every gateway process.' }),
  APP_URL: url({ default: 'http://localhost:3000', desc: 'Address of the web application, returned by /whoami as `app_url`.' }),
  AUTH_CACHE_TTL_MS: millis(5_000)({
    default: 2_000,
    desc: 'How long a key lookup is cached in a process, found or not (max 5000: revocations and plan changes apply within 5 s).',
  }),
  AUTH_FAILURES_PER_ADDRESS: count({
    default: 20,
    desc: 'Failed authentications (unknown or revoked keys) one client address may make per AUTH_FAILURE_WINDOW_MS; past that its uncached keys get 429 before any lookup.',
  }),
  AUTH_FAILURE_WINDOW_MS: count({ default: 60_000, desc: 'Window of AUTH_FAILURES_PER_ADDRESS, counted from the first failure (whole seconds).' }),
  TRUST_PROXY: trustProxy({
    default: '',
    desc: 'Proxies whose X-Forwarded-For is believed for the client address (Fastify `trustProxy`): empty for none, a number of hops, or addresses/CIDR ranges (`uniquelocal` = private ranges). In Kubernetes, the Ingress controller.',
  }),
  WRITE_LIMIT_PER_MINUTE: count({ default: 120, desc: 'Writes accepted per key in any minute window.' }),
  WRITE_LIMIT_PER_HOUR: count({ default: 3000, desc: 'Writes accepted per key in any hour window.' }),
  WRITE_LIMIT_MINUTE_WINDOW_MS: count({ default: 60_000, desc: 'Length of the short window (tests shorten it).' }),
  WRITE_LIMIT_HOUR_WINDOW_MS: count({ default: 3_600_000, desc: 'Length of the long window (tests shorten it).' }),
  WRITE_LIMIT_EXEMPT_ACCOUNTS: str({ default: '', desc: 'Comma-separated account ids whose writes are not limited (benchmarks only).' }),
  UPSTREAM_TIMEOUT_MS: count({ default: 30_000, desc: 'How long the gateway waits for a service to answer before 503.' }),
  CONTACTS_API_URL: url({ default: 'http://127.0.0.1:3001', desc: 'contacts-api (customers, consents).' }),
  IDENTITY_ISSUER_URL: url({ default: 'http://127.0.0.1:3002', desc: 'identity-issuer (same-browser passes).' }),
  KNOWLEDGE_API_URL: url({ default: 'http://127.0.0.1:3003', desc: 'knowledge-api (knowledge pieces).' }),
  EVENTS_API_URL: url({ default: 'http://127.0.0.1:3004', desc: 'events-api (the event feed).' }),
  WEBHOOK_DISPATCHER_URL: url({ default: 'http://127.0.0.1:3005', desc: 'webhook-dispatcher (webhook endpoints).' }),
  CHAT_URL: url({ default: 'http://127.0.0.1:3006', desc: 'The chat (widget, visitor API): the gateway routes `/chat/*` there unchanged, without key checks; `admin widget origins` writes its widget settings there.' }),
  CONSOLE_URL: url({ default: 'http://127.0.0.1:3007', desc: 'The console (the team\'s web app): the gateway routes every path outside `/api/`, `/chat/`, `/mcp` and its own probes there unchanged, without key checks.' }),
};

export type GatewayConfig = Config<typeof gatewayConfigSpec>;

/** TRUST_PROXY as Fastify takes it: false (the default) trusts no proxy. */
export function trustProxyOption(setting: GatewayConfig['TRUST_PROXY']): false | number | string {
  return setting === '' ? false : setting;
}
