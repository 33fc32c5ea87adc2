import { consumerConfigSpec, messagingConfigSpec } from '@svc/messaging';
import { databaseConfigSpec } from '@svc/persistence';
import { asSecret, bool, Config, count, optional, serviceConfigSpec } from '@svc/platform';
import { makeValidator } from 'envalid';
import { readFileSync } from 'node:fs';
import { parseRetrySchedule } from '@svc/jobs';
import { decodeAesKey, KEY_ID, LEGACY_KEY_ID, parseKeyList } from './security/secret-keys';

/** 32 bytes as hex or base64: the AES-256-GCM key of the signing secrets at rest. */
const aesKey = asSecret(
  makeValidator<string>((value) => {
    if (!decodeAesKey(value)) throw new Error('must be 32 bytes written as 64 hex characters or base64 (e.g. `openssl rand -base64 32`)');
    return value;
  }),
);

const keyId = makeValidator<string>((value) => {
  if (!KEY_ID.test(value)) throw new Error("must be 1 to 64 letters, digits, '.', '_' or '-'");
  return value;
});

/** `id:key,id:key`: keys that still open what they sealed. */
const keyList = makeValidator<string>((value) => {
  parseKeyList(value);
  return value;
});

const retrySchedule = makeValidator<string>((value) => {
  parseRetrySchedule(value);
  return value;
});

/** Empty, or a readable PEM file with at least one certificate. */
const pemFile = makeValidator<string>((value) => {
  if (value === '') return value;
  let text: string;
  try {
    text = readFileSync(value, 'utf8');
  } catch (err) {
    throw new Error(`cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new Error('must be a PEM file of one or more certificates');
  return value;
});

/** A whole number of 0 or more. */
const countOrZero = makeValidator<number>((value) => {
  if (!/^\d{1,9}$/.test(value.trim())) throw new Error('must be a whole number of 0 or more');
  return Number(value);
});

export const webhookDispatcherConfigSpec = {
  ...serviceConfigSpec('webhook-dispatcher', 'Port of webhook-dispatcher (reached through the gateway).'),
  ...messagingConfigSpec,
  ...consumerConfigSpec,
  ...databaseConfigSpec('webhook-dispatcher owns schema `webhooks` (endpoints, deliveries, attempts)'),
  WEBHOOK_SECRET_KEY: aesKey({
    devDefault: '825c7fabe970d711434486fba8fe969156bc5ffa0653a2125453c09baadb3c23',
    desc: 'AES-256-GCM key (32 bytes, hex or base64) that encrypts webhook signing secrets at rest; new secrets are sealed with it. To rotate it, move the old one to WEBHOOK_SECRET_KEYS_PREVIOUS (docs/operations.md "Secrets and rotation").',
  }),
  WEBHOOK_SECRET_KEY_ID: keyId({
    default: LEGACY_KEY_ID,
    desc: 'Id of WEBHOOK_SECRET_KEY, recorded in every secret it seals (1 to 64 of `A-Za-z0-9._-`). Secrets sealed before key ids existed count as id `1`.',
  }),
  WEBHOOK_SECRET_KEYS_PREVIOUS: optional(
    keyList,
    'Other keys that open (never seal) webhook secrets, as comma-separated `id:key` pairs (e.g. `1:<old key>`): earlier keys, kept while any endpoint sealed with them exists, and during a rotation the next one (docs/operations.md "Secrets and rotation").',
  ),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool({
    default: false,
    desc: 'Allow receivers on loopback, private, link-local and reserved addresses (development and tests only).',
  }),
  WEBHOOK_CA_FILE: optional(pemFile, 'PEM file of extra certificate authorities trusted for receivers, added to the default ones.'),
  WEBHOOK_TIMEOUT_MS: count({ default: 8000, desc: 'Total time an attempt may take (connect, TLS, answer) before it fails.' }),
  WEBHOOK_RETRY_SCHEDULE: retrySchedule({
    default: '1m,5m,30m,2h,6h,12h',
    desc: 'Waits after each failed attempt (units ms, s, m, h); after the last one the delivery is `failed`. Tests shorten it, e.g. `1s,2s,3s,4s,5s,6s`.',
  }),
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: count({
    default: 32,
    desc: 'Attempts in flight to one endpoint at once, so a slow receiver cannot hold every worker.',
  }),
  WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT: count({
    default: 64,
    desc: 'Attempts in flight for one account at once, over all its endpoints (a quarter of the default WEBHOOK_CONCURRENCY), so that one account with slow receivers cannot hold every worker. Keep it well below WEBHOOK_CONCURRENCY and at or above WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT.',
  }),
  WEBHOOK_CONCURRENCY: countOrZero({
    default: 256,
    desc: 'Attempts in flight in this process; 0 serves the API only and delivers nothing.',
  }),
  WEBHOOK_POLL_INTERVAL_MS: count({
    default: 1000,
    desc: 'How often workers look for due deliveries: retries, and deliveries no process could take when they were made (new ones are sent at once by the process that makes them).',
  }),
  WEBHOOK_RETENTION_DAYS: count({
    default: 30,
    desc: 'Days finished deliveries and their attempts are kept before the prune job removes them.',
  }),
  WEBHOOK_PRUNE_INTERVAL_MS: count({ default: 600_000, desc: 'How often the prune job runs.' }),
  WEBHOOK_DISABLE_AFTER_MS: count({
    default: 5 * 24 * 3_600_000,
    desc: 'An endpoint whose attempts have all failed for this long (5 days) is disabled (`disabled_reason: "failing"`); it is checked every minute, or every quarter of this when shorter. Tests shorten it.',
  }),
  WEBHOOK_SECRET_OVERLAP_MS: count({
    default: 24 * 3_600_000,
    desc: 'After `rotate-secret`, how long the previous secret keeps signing X-SVC-Signature while the new one signs X-SVC-Signature-Next (24 h).',
  }),
};

export type WebhookDispatcherConfig = Config<typeof webhookDispatcherConfigSpec>;
/** The settings, validated at start: `@Inject(WEBHOOK_DISPATCHER_CONFIG) config: WebhookDispatcherConfig` (or a Pick of it). */
export const WEBHOOK_DISPATCHER_CONFIG = Symbol('WEBHOOK_DISPATCHER_CONFIG');

/** A lease outlasts the longest attempt by this much (time to record its result). */
export const LEASE_MARGIN_MS = 5_000;

/**
 * How long the app's own work may take to stop on SIGTERM, between the readiness delay and the
 * closing of the listener: attempts in flight finish and are recorded, for up to a lease
 * (tools/deploy-checks.ts adds it to the drain that terminationGracePeriodSeconds must cover).
 */
export function backgroundDrainMs(config: Pick<WebhookDispatcherConfig, 'WEBHOOK_TIMEOUT_MS'>): number {
  return config.WEBHOOK_TIMEOUT_MS + LEASE_MARGIN_MS;
}
