import { databaseConfigSpec } from '@svc/persistence';
import {
  Config,
  count,
  DEFAULT_APP_URL,
  millis,
  optional,
  redisUrl,
  callerConfigSpec,
  serviceUrl,
  str,
  trustProxy,
  url,
} from '@svc/platform';

export const gatewayConfigSpec = {
  ...callerConfigSpec('gateway', 'Port of the public API.'),
  ...databaseConfigSpec('the gateway owns schema `gateway` (accounts, keys)'),
  REDIS_URL: redisUrl({
    default: 'redis://127.0.0.1:6379',
    desc: 'Redis, for the write limits and Idempotency-Key answers shared by every gateway process: `redis://[:password@]host:6379[/db]` (`rediss://` for TLS) for one server; `redis+sentinel://[:password@]host1:26379,host2:26379,…/<master name>` through Redis Sentinel (sentinels with their own password: `?sentinelPassword=…`); `redis+cluster://[:password@]host1:6379,host2:6379,…` for Redis Cluster (`rediss+sentinel`, `rediss+cluster`: TLS).',
  }),
  APP_URL: url({ default: DEFAULT_APP_URL, desc: 'Address of the web application, returned by /whoami as `app_url`.' }),
  AUTH_CACHE_TTL_MS: millis(5_000)({
    default: 2_000,
    desc: 'How long a key lookup is cached in a process, found or not (max 5000: revocations and plan changes apply within 5 s).',
  }),
  TRUST_PROXY: optional(
    trustProxy,
    'Proxies whose X-Forwarded-For is believed for the client address (Fastify `trustProxy`): empty for none, a number of hops, or addresses/CIDR ranges (`uniquelocal` = private ranges). In Kubernetes, the Ingress controller.',
  ),
  WRITE_LIMIT_PER_MINUTE: count({ default: 120, desc: 'Writes accepted per key in any minute window.' }),
  WRITE_LIMIT_PER_HOUR: count({ default: 3000, desc: 'Writes accepted per key in any hour window.' }),
  WRITE_LIMIT_MINUTE_WINDOW_MS: count({ default: 60_000, desc: 'Length of the short window (tests shorten it).' }),
  WRITE_LIMIT_HOUR_WINDOW_MS: count({ default: 3_600_000, desc: 'Length of the long window (tests shorten it).' }),
  UPSTREAM_TIMEOUT_MS: count({ default: 30_000, desc: 'How long the gateway waits for a service to answer before 503.' }),
  CONTACTS_API_URL: serviceUrl('contacts-api', 'contacts-api (customers, consents).'),
  IDENTITY_ISSUER_URL: serviceUrl('identity-issuer', 'identity-issuer (same-browser passes).'),
  KNOWLEDGE_API_URL: serviceUrl('knowledge-api', 'knowledge-api (knowledge pieces).'),
  EVENTS_API_URL: serviceUrl('events-api', 'events-api (the event feed).'),
  WEBHOOK_DISPATCHER_URL: serviceUrl('webhook-dispatcher', 'webhook-dispatcher (webhook endpoints).'),
  MCP_SERVER_URL: serviceUrl('mcp-server', 'mcp-server: the gateway routes `/mcp` there after the key, plan and Host/Origin checks.'),
  MCP_ALLOWED_HOSTS: optional(
    str,
    'Comma-separated host names (no port) `/mcp` answers besides the one of APP_URL and localhost, 127.0.0.1, [::1]; any other Host header gets 403 (DNS rebinding).',
  ),
  MCP_ALLOWED_ORIGINS: optional(
    str,
    'Comma-separated origins (`https://agent.example`) whose browser pages may call `/mcp` besides the origin of APP_URL; a request with any other Origin header gets 403. Requests without Origin (agents, not browsers) pass.',
  ),
  CHAT_URL: serviceUrl(
    'chat',
    'The chat (widget, visitor API): the gateway routes `/chat/*` there unchanged, without key checks; `admin widget origins` writes its widget settings there.',
  ),
  CONSOLE_URL: serviceUrl(
    'console',
    "The console (the team's web app): the gateway routes every path outside `/api/`, `/chat/`, `/mcp` and its own probes there unchanged, without key checks.",
  ),
};

export type GatewayConfig = Config<typeof gatewayConfigSpec>;
/** The settings, validated at start: `@Inject(GATEWAY_CONFIG) config: GatewayConfig` (or a Pick of it). */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
