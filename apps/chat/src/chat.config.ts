import { consumerConfigSpec, messagingConfigSpec, outboxConfigSpec } from '@svc/messaging';
import { databaseConfigSpec } from '@svc/persistence';
import {
  Config,
  count,
  DEFAULT_APP_URL,
  httpUrlListOrEmpty,
  httpUrlOrEmpty,
  makeValidator,
  millis,
  optional,
  redisUrl,
  secret,
  callerConfigSpec,
  serviceUrl,
  str,
  trustProxy,
  url,
} from '@svc/platform';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration such as `3m`, `2s`, `500ms`, `1h` or `30d`, in milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d{1,9})(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) throw new Error('must be a duration such as 3m, 30s, 500ms, 1h or 30d');
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** Kept as written (`3m`), so the documented default reads as one; parse it with parseDuration. */
const duration = makeValidator<string>((value) => {
  parseDuration(value);
  return value.trim();
});

export const chatConfigSpec = {
  ...callerConfigSpec(
    'chat',
    'Port the app listens on (the chat: 3006; visitors reach it under `{APP_URL}/chat/` through the gateway or the Ingress).',
  ),
  ...messagingConfigSpec,
  ...outboxConfigSpec,
  ...consumerConfigSpec,
  ...databaseConfigSpec('the chat owns schema `chat` (conversations, messages, widget settings)'),
  APP_URL: url({
    default: DEFAULT_APP_URL,
    desc: 'Address of the web application: conversation links in events (`{APP_URL}/inbox/{id}`); its origin may always use the widget.',
  }),
  GATEWAY_URL: serviceUrl('gateway', 'The gateway, which owns accounts: the chat asks it which account a widget id belongs to.'),
  CONTACTS_API_URL: serviceUrl('contacts-api', 'contacts-api (customers, consents).'),
  IDENTITY_ISSUER_URL: serviceUrl('identity-issuer', 'identity-issuer (verifies same-browser passes).'),
  KNOWLEDGE_API_URL: serviceUrl('knowledge-api', "knowledge-api (the assistant's search)."),
  KNOWLEDGE_SEARCH_URLS: optional(
    httpUrlListOrEmpty,
    "With search shards: knowledge-api's search, one http(s) URL per shard in shard order (`http://knowledge-api-0:3100,http://knowledge-api-1:3100`, each shard's replicas started with SEARCH_SHARD `i/count`); a search goes to its account's shard. Empty: KNOWLEDGE_API_URL holds every account. See docs/adr/018-search-shards.md.",
  ),
  INTERNAL_TIMEOUT_MS: count({
    default: 5_000,
    desc: 'How long the chat waits for another service (contacts-api, identity-issuer, knowledge-api, gateway) before 503 or a retry.',
  }),
  HANDOVER_WAIT: duration({
    default: '3m',
    desc: 'After a customer asks for a person, how long without a team reply before the widget asks how to reach them (`3m`, `2s`: units ms, s, m, h).',
  }),
  LLM_BASE_URL: optional(
    httpUrlOrEmpty,
    'Optional OpenAI-compatible API (`…/v1`): when set, the assistant writes replies from the top passages with `POST {LLM_BASE_URL}/chat/completions`; empty: the built-in extractive answer.',
  ),
  LLM_MODEL: optional(str, 'The model asked at LLM_BASE_URL (required with it).'),
  LLM_API_KEY: optional(str, 'Bearer key for LLM_BASE_URL (empty: none sent).'),
  CHAT_DEMO_KEY: optional(
    str,
    'Development only (`npm start` sets it): an API key of the demo account; `/chat/demo` then serves a sample shop page with the widget and a pass for its sample customer. Empty (production): `/chat/demo` is 404.',
  ),
  TRUST_PROXY: optional(
    trustProxy,
    'Proxies whose X-Forwarded-For is believed for the client address (Fastify `trustProxy`): empty for none, a number of hops, or addresses/CIDR ranges (`uniquelocal` = private ranges). Kubernetes: `1` (the Ingress controller); the chat under `npm start`: `loopback` (the gateway).',
  ),
  VISITOR_CONVERSATIONS_PER_ADDRESS: count({
    default: 30,
    desc: 'New conversations one visitor address (an IPv6 /64) may open per VISITOR_CONVERSATION_WINDOW_MS, counted in PostgreSQL across all chat processes; past that 429 with Retry-After. Resuming a conversation is not counted.',
  }),
  VISITOR_CONVERSATION_WINDOW_MS: count({ default: 600_000, desc: 'Window of VISITOR_CONVERSATIONS_PER_ADDRESS (whole seconds).' }),
  REDIS_URL: redisUrl({
    default: 'redis://127.0.0.1:6379',
    desc: "Redis, where every chat process counts the open visitor streams (per token, address and account; the same forms as the gateway's REDIS_URL: `redis://`, `rediss://`, `redis+sentinel://…/<master name>`, `redis+cluster://…`). While it is down a new stream is refused with 503 (open ones go on).",
  }),
  VISITOR_STREAMS_PER_ADDRESS: count({
    default: 50,
    desc: 'Visitor streams (`GET /chat/v1/stream`) one client address (an IPv6 /64) may hold open across all chat processes (counted in Redis); past that 429 with Retry-After (a visitor token: at most 5).',
  }),
  VISITOR_STREAMS_PER_ACCOUNT: count({
    default: 1_000,
    desc: "Visitor streams one account's widgets may hold open across all chat processes (counted in Redis), so that one business cannot take the streams of every other; past that 429 with Retry-After.",
  }),
  CHAT_MAX_STREAMS: count({
    default: 3_000,
    desc: 'Visitor streams one chat process holds open at most (about 120 KB each: 3,000 fit a 512 MiB pod); past that 503 `unavailable` with Retry-After, so the widget retries, on another replica too.',
  }),
  VISITOR_TOKEN_MAX_AGE: duration({
    default: '30d',
    desc: "How long a visitor token lasts after it was issued (`30d`, `12h`: units ms, s, m, h, d); past it 401, and the widget opens a new session (a pass of the conversation's customer resumes it with a new token; an anonymous visitor starts anew).",
  }),
  VISITOR_MESSAGES_PER_MINUTE: count({
    default: 20,
    desc: 'Messages a visitor may send in one conversation in any minute (counted in PostgreSQL, across replicas); past that 429 with Retry-After.',
  }),
  SMTP_URL: optional(
    secret(1, { orEmpty: true }),
    'SMTP server for confirmation emails (nodemailer URL: `smtp://user:pass@host:587`, `smtps://…`). Empty: emails stay queued until it is set. `npm start` points it at its local mail sink (docs/chat.md "Channels").',
  ),
  EMAIL_FROM: str({ default: 'Chat <no-reply@localhost>', desc: 'The From of confirmation emails.' }),
  WHATSAPP_API_URL: optional(
    httpUrlOrEmpty,
    'WhatsApp Business Cloud API base (`https://graph.facebook.com/v21.0`; a local fake in development and tests): the chat sends `POST {WHATSAPP_API_URL}/{phone_number_id}/messages`. Empty: WhatsApp sends stay queued.',
  ),
  WHATSAPP_ACCESS_TOKEN: optional(secret(0, { orEmpty: true }), 'Bearer token for WHATSAPP_API_URL (a system user token).'),
  WHATSAPP_APP_SECRET: optional(
    secret(32, { orEmpty: true }),
    'The Cloud API app secret (32+ characters): `X-Hub-Signature-256` of inbound webhooks is checked with it (empty: every inbound webhook is refused with 401).',
  ),
  WHATSAPP_VERIFY_TOKEN: optional(
    secret(0, { orEmpty: true }),
    'The verify token of the webhook handshake (`GET /chat/whatsapp/webhook`); empty: the handshake is refused.',
  ),
  DELIVERY_RETRY_BASE_MS: millis(600_000)({
    default: 2_000,
    desc: 'First retry delay of a WhatsApp message or email whose provider is down; doubled each attempt, at most 10 minutes.',
  }),
  ASSISTANT_SEARCH_CONCURRENCY: count({
    default: 4,
    desc: 'Knowledge search calls one chat process has in flight at most; questions asked meanwhile wait in order and go together, per account, in the next call (the first asked is answered first when many write at once).',
  }),
  ASSISTANT_REPLY_TRIES: count({
    default: 5,
    desc: "Tries of the assistant's answer to a message (a search that fails, a service down), the sweep's growing delay between them; then it says it could not answer and offers a person.",
  }),
  LLM_TIMEOUT_MS: millis(60_000)({
    default: 10_000,
    desc: 'How long a reply from LLM_BASE_URL may take before the extractive answer is used instead.',
  }),
};

export type ChatConfig = Config<typeof chatConfigSpec>;
/** The settings, validated at start: `@Inject(CHAT_CONFIG) config: ChatConfig` (or a Pick of it). */
export const CHAT_CONFIG = Symbol('CHAT_CONFIG');

/** How often a replica looks for conversations whose wait for a person ran out: a tenth of the wait, between 0.5 and 5 s. */
export function handoverSweepIntervalMs(waitMs: number): number {
  return Math.min(5_000, Math.max(500, Math.floor(waitMs / 10)));
}

/**
 * How long the app's own work may take to stop on SIGTERM, between the readiness delay and the
 * closing of the listener: the assistant's answers in flight, each a knowledge search, the
 * optional LLM's reply and the customer's contact, one after another (tools/deploy-checks.ts).
 */
export function backgroundDrainMs(config: Pick<ChatConfig, 'INTERNAL_TIMEOUT_MS' | 'LLM_TIMEOUT_MS'>): number {
  return 2 * config.INTERNAL_TIMEOUT_MS + config.LLM_TIMEOUT_MS;
}
