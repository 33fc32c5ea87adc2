// npm run bench:volume — the hot paths at volume. Loads, in the apps' own tables of a scratch database, with
// server-side INSERT … SELECT … FROM generate_series in batches, BENCH_VOLUME_SCALE × 1,000 accounts, 1,000,000
// customers (half with a consent), 10,000,000 events, 2,000,000 delivery attempts (one per delivery), 200,000
// conversations with 2,000,000 messages, 500,000 knowledge pieces and, for the pass retention, 500,000 issued passes;
// every account holds as many of each, and a second scratch database holds the bench's account alone with the same rows
// of its own ("empty"). Each table's load time is printed. Then, with the apps of each database started from dist/ as
// in production, each hot path on both, in alternating rounds with the same client (undici, BENCH_VOLUME_CONCURRENCY
// calls at once), p50/p99 and the ratio loaded/empty (target: p99 at most 1.5×):
//   - a feed page: GET /api/v1/events?after=<the middle of the account's events>&limit=100 through the gateway;
//   - a customer by email and by phone: GET /api/v1/contacts?email= / ?phone= through the gateway;
//   - a PUT /api/v1/contacts/{ref} of a loaded customer (a new name each time) through the gateway;
//   - a delivery claim: webhook-dispatcher's own claim statement (DeliveriesRepository.claim, from dist/) over 100 due
//     deliveries of the account made with its own insertForEvents, leased for 1 ms so that every claim finds them;
//   - an inbox page: the chat's GET /internal/chat/conversations, signed as the console;
//   - a knowledge search: knowledge-api's POST /internal/knowledge/search, signed as the chat.
// Then retention while traffic runs on the loaded database: every hot path at once (one call in flight each) for
// BASELINE_S seconds, then the retention jobs of events-api, webhook-dispatcher and identity-issuer, started as extra
// replicas with a short prune interval, remove what is older than RETENTION_DAYS (a quarter of the events and of the
// deliveries with their attempts, a third of the passes); pg_stat_activity and pg_locks are sampled every 50 ms: the
// longest any hot path's statement waited on a lock held by a retention statement, and the paths' p99 before and
// during retention. Last, knowledge-api's start-up (process start to /readyz) and memory on each database, per
// 100,000 pieces.
// Knobs: BENCH_VOLUME_SCALE (1; at least one account), BENCH_VOLUME_REQUESTS (2000 calls per path and database),
// BENCH_VOLUME_ROUNDS (4), BENCH_VOLUME_CONCURRENCY (4), BENCH_VOLUME_RETENTION_TIMEOUT_S (1800),
// BENCH_VOLUME_SEARCH_SHARDS (4: the loaded database's knowledge-api runs as that many search shards, one replica each,
// each timed to ready alone; the chat and the search path reach the account's shard; at the end one replica holding
// every account, SEARCH_SHARD 0/1, is started on the loaded database as well, for its start time and memory).
// Needs `npm run build`, PostgreSQL, RabbitMQ (rabbitmqctl: a vhost per database) and Redis on 127.0.0.1. Writes
// bench/results/volume-*.json.
import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { Pool } from 'undici';
import {
  benchDatabase,
  machine,
  percentile,
  root,
  round1,
  round2,
  seededRandom,
  startApp,
  stopProcesses,
  writeAndPrintResult,
} from './support.mjs';
import { ASPECTS, CITIES, COLOURS, FILLER, MATERIALS, PRODUCTS, SYLLABLES } from './shop-corpus.mjs';

const require = createRequire(import.meta.url);
/** @type {typeof import('../libs/testing/src/index.js')} */
const { createTestVhost, freePort } = require(join(root, 'dist/libs/testing/src/index.js'));
/** @type {typeof import('../libs/platform/src/index.js')} */
const { InternalAuth } = require(join(root, 'dist/libs/platform/src/index.js'));
/** @type {typeof import('../libs/persistence/src/index.js')} */
const { createDataSource } = require(join(root, 'dist/libs/persistence/src/index.js'));
/** @type {typeof import('../libs/contracts/src/index.js')} */
const { sampleEventData, searchShardOf } = require(join(root, 'dist/libs/contracts/src/index.js'));
/** @type {typeof import('../libs/search/src/index.js')} */
const { detectLanguage } = require(join(root, 'dist/libs/search/src/index.js'));
/** @type {typeof import('../apps/webhook-dispatcher/src/delivery/deliveries.repository.js')} */
const { DeliveriesRepository } = require(join(root, 'dist/apps/webhook-dispatcher/src/delivery/deliveries.repository.js'));
/** @type {typeof import('../apps/webhook-dispatcher/src/delivery/recorded-event.js')} */
const { deliveryBody, parseRecordedEvent } = require(join(root, 'dist/apps/webhook-dispatcher/src/delivery/recorded-event.js'));
/** @type {typeof import('../apps/webhook-dispatcher/src/security/secret-box.js')} */
const { SecretBox } = require(join(root, 'dist/apps/webhook-dispatcher/src/security/secret-box.js'));

/** @typedef {import('node:child_process').ChildProcess} ChildProcess */
/** @typedef {import('../libs/contracts/src/index.js').GatewayContext['account']} Account */
/** @typedef {{ p50_ms: number, p99_ms: number, calls: number, errors: number }} Latency */

const SCALE = Number(process.env.BENCH_VOLUME_SCALE ?? 1);
const REQUESTS = Number(process.env.BENCH_VOLUME_REQUESTS ?? 2_000);
const ROUNDS = Number(process.env.BENCH_VOLUME_ROUNDS ?? 4);
const CONCURRENCY = Number(process.env.BENCH_VOLUME_CONCURRENCY ?? 4);
const RETENTION_TIMEOUT_S = Number(process.env.BENCH_VOLUME_RETENTION_TIMEOUT_S ?? 1_800);
/** Search shards of the loaded database's knowledge-api (docs/adr/018-search-shards.md): one replica per shard. */
const SEARCH_SHARDS = Number(process.env.BENCH_VOLUME_SEARCH_SHARDS ?? 4);
/** How long a knowledge-api may take to load its index and answer /readyz. */
const KNOWLEDGE_READY_S = 600;
/** Calls per path and database before the measured rounds. */
const WARMUP = 100;
const TARGET_P99_RATIO = 1.5;
/** The loaded rows' times spread over this many days before the load; retention keeps RETENTION_DAYS of them. */
const AGE_DAYS = 40;
const RETENTION_DAYS = 30;
/** The retention replicas' pass interval: their first pass comes this long after they start, together, once all are up. */
const PRUNE_INTERVAL_MS = 15_000;
const SAMPLE_MS = 50;
/** Seconds of traffic on the loaded database before retention starts: what the paths' p99 during it is set against. */
const BASELINE_S = 10;
/** Rows (of the iterated table) per INSERT … SELECT. */
const BATCH = 50_000;
/** Due deliveries of the bench's account that every claim walks. */
const DUE_DELIVERIES = 100;
/** Write limits out of reach: the writes are counted as in production, and none is refused. */
const BENCH_WRITE_LIMIT = '1000000000';
const LOG_LEVEL = 'warn';

/** The issue's figures, at scale 1. */
const FULL = {
  accounts: 1_000,
  customers: 1_000_000,
  events: 10_000_000,
  attempts: 2_000_000,
  conversations: 200_000,
  messages: 2_000_000,
  pieces: 500_000,
  passes: 500_000,
};
const ACCOUNTS = Math.max(1, Math.round(FULL.accounts * SCALE));
/** @param {number} full */
const perAccount = (full) => Math.max(1, Math.round((full * SCALE) / ACCOUNTS));
/** Rows of each kind per account: every account holds as many, so the totals are these times ACCOUNTS. */
const PER = {
  customers: perAccount(FULL.customers),
  events: perAccount(FULL.events),
  deliveries: perAccount(FULL.attempts),
  conversations: perAccount(FULL.conversations),
  pieces: perAccount(FULL.pieces),
  passes: perAccount(FULL.passes),
};
const MESSAGES_PER_CONVERSATION = FULL.messages / FULL.conversations;
/** A delivery for every this many events of an account (its one endpoint takes every kind). */
const EVENTS_PER_DELIVERY = Math.max(1, Math.floor(PER.events / PER.deliveries));
/** The feed page's cursor: the middle of the account's events, which retention leaves in place. */
const FEED_AFTER = Math.floor(PER.events / 2);

// ---- What the rows say: a shop's customers, messages and knowledge, reproducible ----
const random = seededRandom(20261205);
const BRANDS = [
  ...new Set(
    Array.from({ length: 400 }, () =>
      Array.from({ length: 2 + Math.floor(random() * 2) }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]).join(''),
    ),
  ),
].map((b) => b[0].toUpperCase() + b.slice(1));
/** @typedef {keyof typeof ASPECTS} Aspect */
const ASPECT_NAMES = /** @type {Aspect[]} */ (Object.keys(ASPECTS));
/** Every aspect's sentences in one list, in ASPECT_NAMES' order: aspect i's start at ASPECT_STARTS[i], ASPECT_SIZES[i] of them. */
const ASPECT_SENTENCES = ASPECT_NAMES.flatMap((aspect) => ASPECTS[aspect]);
const ASPECT_SIZES = ASPECT_NAMES.map((aspect) => ASPECTS[aspect].length);
const ASPECT_STARTS = ASPECT_SIZES.map((_, i) => ASPECT_SIZES.slice(0, i).reduce((sum, size) => sum + size, 0));
/** What visitors ask about each aspect ({p} product, {b} brand). */
const QUESTION_FORMS = {
  shipping: ['How long does shipping of the {p} take?', 'is shiping free for {b} {p}?'],
  returns: ['Can I return the {p}?', 'how do returns work for {b} {p}'],
  warranty: ['What warranty does the {b} {p} have?', 'waranty claim for a broken {p}'],
  sizing: ['Which size of the {p} should I order?', 'does the {b} {p} run small'],
  care: ['How do I clean the {p}?', 'waterproofing the {b} {p}'],
  pricing: ['How much is the {b} {p}?', 'student discount on {p}'],
  rental: ['Can I rent a {p}?', 'deposit for renting a {b} {p}'],
  payment: ['Can I pay the {p} by invoice?', 'instalments for a {b} {p}'],
};
/** Message texts (no double quotes: the delivery bodies are compacted around them). */
const CUSTOMER_TEXTS = [
  'Is the rain jacket still available in size M?',
  'When will my order arrive?',
  'Can I return the tent if it is too small?',
  'Do you have a shop in Vienna?',
  'How much is the deposit for a kayak?',
];
const ASSISTANT_TEXTS = [
  'Yes, it is in stock and ships within two working days.',
  'Orders usually arrive within three working days.',
  'You can return any unused item within 30 days.',
  'Our shops are listed on the stores page.',
  'The deposit is held on your card and released on return.',
];

// ---- The rows, in SQL: row i of a table belongs to account i % ACCOUNTS and is its (i / ACCOUNTS)th ----
/** @param {string} text */
const sqlText = (text) => `'${text.replaceAll("'", "''")}'`;
/** @param {readonly string[]} list */
const sqlArray = (list) => `ARRAY[${list.map(sqlText).join(', ')}]`;
/** @param {readonly number[]} list */
const sqlNumbers = (list) => `ARRAY[${list.join(', ')}]::int[]`;
/**
 * The SQL text `template` with each of `values`' placeholders replaced by its SQL value.
 * @param {string} template
 * @param {Record<string, string>} values
 */
const filled = (template, values) =>
  Object.entries(values).reduce((text, [placeholder, value]) => `replace(${text}, ${sqlText(placeholder)}, ${value})`, template);
/** @param {string} ts a timestamptz, as the contract writes it (UTC, microseconds, `+00:00`) */
const stamp = (ts) => `to_char((${ts}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;
/**
 * The `k`th of `per` rows' time, spread evenly over `days` days up to the load's reference time (p.t): k = per is the newest.
 * @param {string} k
 * @param {number} per
 * @param {number} days
 */
const spread = (k, per, days) => `(p.t - interval '1 day' * ${days} * ((${per} - (${k}))::float8 / ${per}))`;
/**
 * Account n's id: account 0 is the bench's (made with the admin CLI: p.bench), the others' are derived from their number.
 * @param {string} n
 */
const accountId = (n) => `(CASE WHEN ${n} = 0 THEN p.bench ELSE md5('volume-account-' || ${n})::uuid END)`;
/**
 * Account n's id as `accountId` computes it.
 * @param {number} n
 * @param {string} benchId
 */
function accountUuid(n, benchId) {
  if (n === 0) return benchId;
  const hex = createHash('md5').update(`volume-account-${n}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
/**
 * The parameters of every load statement ($1 the bench's account, $2…$4 the rows i from, to and step, $5 the reference
 * time), then `body`, an INSERT whose SELECT reads FROM `ROWS` and the columns a and k of `ACCOUNT_ROW`.
 * @param {string} body
 */
const statement = (body) =>
  `WITH p AS (SELECT $1::uuid AS bench, $2::bigint AS lo, $3::bigint AS hi, $4::bigint AS step, $5::timestamptz AS t) ${body}`;
const ROWS = `p, generate_series(p.lo, p.hi, p.step) AS i`;
const ACCOUNT_ROW = `LATERAL (SELECT (i % ${ACCOUNTS})::int AS a, i / ${ACCOUNTS} AS k) AS r`;

/**
 * A customer's columns (as contacts-api stores them) from its global number g (its svc_id is g + 1) and its number k
 * in its account: a ref but for one in ten (met in the chat), an email for four in five (capitalised: lookups ignore
 * case), a phone (E.164) for three in five.
 * @param {string} g
 * @param {string} k
 */
const customerSelect = (g, k) => `SELECT
  CASE WHEN (${k}) % 10 = 9 THEN NULL ELSE 'cust-' || (${k}) END AS ref,
  'Customer ' || (${k}) AS name,
  CASE WHEN (${k}) % 5 = 4 THEN NULL ELSE 'Customer.' || (${g}) || '@Mail' || ((${g}) % 50) || '.example' END AS email,
  (${k}) % 5 <> 4 AND (${k}) % 3 = 0 AS email_confirmed,
  CASE WHEN (${k}) % 5 IN (1, 3) THEN NULL ELSE '+4477' || lpad((${g})::text, 8, '0') END AS phone,
  (ARRAY['en', 'de', 'fr', 'es'])[1 + (${k}) % 4] AS lang,
  ${spread(`(${k}) + 1`, PER.customers, AGE_DAYS + 20)} AS created_at`;
/**
 * The customer of `customerSelect` (alias `c`) as events and the chat's model carry it (EventContact).
 * @param {string} c
 * @param {string} svcId
 */
const contactJson = (c, svcId) => `jsonb_build_object('ref', ${c}.ref, 'svc_id', ${svcId}, 'name', ${c}.name, 'email', ${c}.email,
  'email_confirmed', ${c}.email_confirmed, 'phone', ${c}.phone, 'phone_confirmed', false, 'lang', ${c}.lang,
  'created_at', ${stamp(`${c}.created_at`)}, 'updated_at', ${stamp(`${c}.created_at`)})`;

/**
 * Account a's event e (its feed id, 1 … PER.events, oldest first), as events-api stores it: a message of the account's
 * conversation (every MESSAGES_PER_CONVERSATION events one more) with that conversation's customer. Columns kind,
 * recorded_at, at (ev) and data (ed), svc_id (eo).
 * @param {string} a
 * @param {string} e
 */
const eventLaterals = (a, e) => `
  LATERAL (SELECT ((${e}) - 1) / ${MESSAGES_PER_CONVERSATION} % ${PER.conversations} AS c) AS ec,
  LATERAL (SELECT ec.c % ${PER.customers} AS j) AS ej,
  LATERAL (${customerSelect(`ej.j * ${ACCOUNTS} + (${a})`, 'ej.j')}) AS cu,
  LATERAL (SELECT CASE WHEN (${e}) % 2 = 1 THEN 'message.received' ELSE 'message.sent' END AS kind,
                  ${spread(e, PER.events, AGE_DAYS)} AS recorded_at) AS ev,
  LATERAL (SELECT ev.recorded_at - interval '20 milliseconds' AS at, ec.c * ${ACCOUNTS} + (${a}) + 1 AS conversation_id,
                  ej.j * ${ACCOUNTS} + (${a}) + 1 AS svc_id) AS eo,
  LATERAL (SELECT jsonb_build_object(
    'contact', ${contactJson('cu', 'eo.svc_id')},
    'message', CASE WHEN ev.kind = 'message.received'
      THEN jsonb_build_object('id', ${e}, 'text', (${sqlArray(CUSTOMER_TEXTS)})[1 + (${e}) % ${CUSTOMER_TEXTS.length}], 'at', ${stamp('eo.at')})
      ELSE jsonb_build_object('id', ${e}, 'text', (${sqlArray(ASSISTANT_TEXTS)})[1 + (${e}) % ${ASSISTANT_TEXTS.length}], 'at', ${stamp('eo.at')},
                              'author', 'assistant') END,
    'conversation', jsonb_build_object('id', eo.conversation_id, 'channel', 'web',
                                       'url', 'https://app.example.com/conversations/' || eo.conversation_id)) AS data) AS ed`;

/** @param {string} k a delivery's number in its account: one in a hundred waits for a retry, one in fifty failed */
const deliveryStatus = (k) => `CASE WHEN (${k}) % 100 = 99 THEN 'pending' WHEN (${k}) % 50 = 7 THEN 'failed' ELSE 'delivered' END`;
/**
 * JSON text as JSON.stringify writes it (deliveryBody): PostgreSQL's has spaces after its colons and commas (the
 * texts of the rows have no double quotes, so only the JSON's own are matched).
 * @param {string} json
 */
const compact = (json) => `replace(replace(replace((${json})::text, '" : ', '":'), '": ', '":'), ', "', ',"')`;

/**
 * Account a's piece k (columns product, brand, aspect, aspect_index, external_ref, heading, url), as knowledge-api stores it.
 * @param {string} a
 * @param {string} k
 */
const pieceSelect = (a, k) => `SELECT x.*, x.brand || ' ' || x.product || ': ' || x.aspect AS heading,
    'sku-' || lpad((${k})::text, 6, '0') || '-' || x.aspect AS external_ref,
    'https://shop.example.com/' || lower(x.brand) || '/' || replace(x.product, ' ', '-') || '/' || x.aspect AS url
  FROM (SELECT (${sqlArray(PRODUCTS)})[1 + (${k}) % ${PRODUCTS.length}] AS product,
               (${sqlArray(BRANDS)})[1 + ((${k}) * 7 + (${a}) * 13) % ${BRANDS.length}] AS brand,
               (${sqlArray(ASPECT_NAMES)})[1 + (${k}) / ${PRODUCTS.length} % ${ASPECT_NAMES.length}] AS aspect,
               (${k}) / ${PRODUCTS.length} % ${ASPECT_NAMES.length} AS aspect_index) AS x`;
/**
 * A piece's text (alias `pc` of `pieceSelect`): 14 to 23 sentences, two in three about its aspect, about 200 to 330 words.
 * @param {string} k
 */
const pieceText = (k) => `array_to_string(ARRAY(
    SELECT ${filled(
      `CASE WHEN ((${k}) + s) % 3 < 2
        THEN (${sqlArray(ASPECT_SENTENCES)})[1 + (${sqlNumbers(ASPECT_STARTS)})[1 + pc.aspect_index] + ((${k}) * 7 + s) % (${sqlNumbers(ASPECT_SIZES)})[1 + pc.aspect_index]]
        ELSE (${sqlArray(FILLER)})[1 + ((${k}) * 11 + s * 3) % ${FILLER.length}] END`,
      {
        '{p}': 'pc.product',
        '{b}': 'pc.brand',
        '{c}': `(${sqlArray(CITIES)})[1 + ((${k}) + s) % ${CITIES.length}]`,
        '{material}': `(${sqlArray(MATERIALS)})[1 + ((${k}) + s * 5) % ${MATERIALS.length}]`,
        '{colour}': `(${sqlArray(COLOURS)})[1 + ((${k}) * 5 + s) % ${COLOURS.length}]`,
        '{n}': `(2 + ((${k}) * 3 + s) % 28)::text`,
        '{m}': `(40 + ((${k}) * 5 + s * 7) % 361)::text`,
      },
    )}
    FROM generate_series(1, 14 + (${k}) % 10) AS s), ' ')`;

/**
 * @typedef {object} Loader One table's rows: `rows` iterations of `sql` (row i = 0 … rows - 1, `perRow` rows each);
 *   `fromOne` skips account 0 (the bench's own, made by the admin CLI); `loadedOnly` tables stay empty in the empty database.
 * @property {string} table
 * @property {number} rows
 * @property {number} [perRow]
 * @property {boolean} [fromOne]
 * @property {string} sql
 */

/** @type {Loader[]} */
const LOADERS = [
  {
    table: 'gateway.accounts',
    rows: ACCOUNTS,
    fromOne: true,
    sql: statement(`INSERT INTO gateway.accounts (id, name, plan, created_at, updated_at)
      SELECT ${accountId('i')}, 'Volume account ' || i, (ARRAY['starter', 'growth', 'scale'])[1 + i % 3], p.t - interval '90 days', p.t - interval '90 days'
      FROM ${ROWS}`),
  },
  {
    table: 'gateway.api_keys',
    rows: ACCOUNTS,
    fromOne: true,
    sql: statement(`INSERT INTO gateway.api_keys (account_id, prefix, key_hash, created_at)
      SELECT ${accountId('i')}, 'svc_cust_' || left(md5('volume-key-' || i), 4), sha256(convert_to('volume-key-' || i, 'UTF8')), p.t - interval '90 days'
      FROM ${ROWS}`),
  },
  {
    table: 'contacts.customers',
    rows: PER.customers * ACCOUNTS,
    sql: statement(`INSERT INTO contacts.customers (svc_id, account_id, ref, name, email, email_confirmed, phone, lang, created_at, updated_at)
      OVERRIDING SYSTEM VALUE
      SELECT i + 1, ${accountId('r.a')}, c.ref, c.name, c.email, c.email_confirmed, c.phone, c.lang, c.created_at, c.created_at
      FROM ${ROWS}, ${ACCOUNT_ROW}, LATERAL (${customerSelect('i', 'r.k')}) AS c`),
  },
  {
    table: 'contacts.consents',
    rows: PER.customers * ACCOUNTS,
    sql: statement(`INSERT INTO contacts.consents (account_id, customer_svc_id, purpose, granted, text, lang, given_at, source, origin, created_at)
      SELECT ${accountId('r.a')}, i + 1, 'future_email', true, 'Yes, send me offers and news by email.', 'en', c.created_at, 'website_form', 'api', c.created_at
      FROM ${ROWS}, ${ACCOUNT_ROW}, LATERAL (${customerSelect('i', 'r.k')}) AS c
      WHERE r.k % 2 = 0`),
  },
  {
    table: 'events.account_sequences',
    rows: ACCOUNTS,
    sql: statement(`INSERT INTO events.account_sequences (account_id, last_id) SELECT ${accountId('i')}, ${PER.events} FROM ${ROWS}`),
  },
  {
    table: 'events.events',
    rows: PER.events * ACCOUNTS,
    sql: statement(`INSERT INTO events.events (account_id, id, event_id, kind, at, data, recorded_at)
      SELECT ${accountId('r.a')}, r.k + 1, md5('volume-event-' || i)::uuid, ev.kind, eo.at, ed.data, ev.recorded_at
      FROM ${ROWS}, ${ACCOUNT_ROW}, ${eventLaterals('r.a', 'r.k + 1')}`),
  },
  {
    table: 'webhooks.deliveries',
    rows: PER.deliveries * ACCOUNTS,
    sql: statement(`INSERT INTO webhooks.deliveries (id, account_id, endpoint_id, event_id, event_kind, body, status, attempts,
                                                     next_attempt_at, created_at, finished_at, contact_svc_id)
      OVERRIDING SYSTEM VALUE
      SELECT i + 1, ${accountId('r.a')}, r.a + 1, d.e, ev.kind,
             convert_to(${compact(`json_build_object('id', d.e, 'event', ev.kind, 'at', ${stamp('eo.at')}, 'data', ed.data)`)}, 'UTF8'),
             d.status, 1, CASE WHEN d.status = 'pending' THEN p.t + interval '2 days' ELSE ev.recorded_at END, ev.recorded_at,
             CASE WHEN d.status = 'pending' THEN NULL ELSE ev.recorded_at + interval '300 milliseconds' END, eo.svc_id
      FROM ${ROWS}, ${ACCOUNT_ROW},
           LATERAL (SELECT r.k * ${EVENTS_PER_DELIVERY} + 1 AS e, ${deliveryStatus('r.k')} AS status) AS d,
           ${eventLaterals('r.a', 'd.e')}`),
  },
  {
    table: 'webhooks.attempts',
    rows: PER.deliveries * ACCOUNTS,
    sql: statement(`INSERT INTO webhooks.attempts (delivery_id, account_id, started_at, duration_ms, status_code, error, response_body)
      SELECT i + 1, ${accountId('r.a')}, ${spread(`r.k * ${EVENTS_PER_DELIVERY} + 1`, PER.events, AGE_DAYS)}, 40 + (i % 300)::int,
             CASE WHEN d.status = 'delivered' THEN 200 ELSE 503 END, NULL,
             CASE WHEN d.status = 'delivered' THEN 'ok' ELSE 'Service Unavailable' END
      FROM ${ROWS}, ${ACCOUNT_ROW}, LATERAL (SELECT ${deliveryStatus('r.k')} AS status) AS d`),
  },
  {
    table: 'chat.conversations',
    rows: PER.conversations * ACCOUNTS,
    sql: statement(`INSERT INTO chat.conversations (id, account_id, channel, token_hash, lang, customer_svc_id, customer_identified,
        customer_name, customer_email, customer_phone, status, handover, handover_reason, last_message_id, created_at, updated_at,
        token_issued_at, last_customer_at)
      SELECT i + 1, ${accountId('r.a')}, 'web', sha256(convert_to('volume-token-' || i, 'UTF8')), cu.lang, j.svc_id, true,
             cu.name, cu.email, cu.phone,
             CASE WHEN r.k % 20 = 0 THEN 'handed_over' ELSE 'open' END, CASE WHEN r.k % 20 = 0 THEN 'created' ELSE 'none' END,
             CASE WHEN r.k % 20 = 0 THEN 'customer_asked' END, ${MESSAGES_PER_CONVERSATION},
             t.created_at, t.created_at + interval '1 minute' * ${MESSAGES_PER_CONVERSATION}, t.created_at, t.created_at + interval '1 minute'
      FROM ${ROWS}, ${ACCOUNT_ROW},
           LATERAL (SELECT r.k % ${PER.customers} AS j, (r.k % ${PER.customers}) * ${ACCOUNTS} + r.a + 1 AS svc_id) AS j,
           LATERAL (${customerSelect(`j.j * ${ACCOUNTS} + r.a`, 'j.j')}) AS cu,
           LATERAL (SELECT ${spread('r.k + 1', PER.conversations, AGE_DAYS)} AS created_at) AS t`),
  },
  {
    table: 'chat.customers',
    rows: PER.conversations * ACCOUNTS,
    sql: statement(`INSERT INTO chat.customers (account_id, svc_id, contact, updated_at)
      SELECT ${accountId('r.a')}, j.svc_id, ${contactJson('cu', 'j.svc_id')}, cu.created_at
      FROM ${ROWS}, ${ACCOUNT_ROW},
           LATERAL (SELECT r.k % ${PER.customers} AS j, (r.k % ${PER.customers}) * ${ACCOUNTS} + r.a + 1 AS svc_id) AS j,
           LATERAL (${customerSelect(`j.j * ${ACCOUNTS} + r.a`, 'j.j')}) AS cu
      ON CONFLICT DO NOTHING`),
  },
  {
    table: 'chat.messages',
    rows: PER.conversations * ACCOUNTS,
    perRow: MESSAGES_PER_CONVERSATION,
    sql: statement(`INSERT INTO chat.messages (conversation_id, id, account_id, author, text, at, citation)
      SELECT i + 1, m, ${accountId('r.a')}, CASE WHEN m % 2 = 1 THEN 'customer' ELSE 'assistant' END,
             CASE WHEN m % 2 = 1 THEN (${sqlArray(CUSTOMER_TEXTS)})[1 + (i + m) % ${CUSTOMER_TEXTS.length}]
                  ELSE (${sqlArray(ASSISTANT_TEXTS)})[1 + (i + m) % ${ASSISTANT_TEXTS.length}] END,
             t.created_at + interval '1 minute' * m,
             CASE WHEN m % 2 = 0 THEN jsonb_build_object('external_ref', pc.external_ref, 'heading', pc.heading, 'url', pc.url) END
      FROM ${ROWS}, ${ACCOUNT_ROW},
           LATERAL (SELECT ${spread('r.k + 1', PER.conversations, AGE_DAYS)} AS created_at) AS t,
           generate_series(1, ${MESSAGES_PER_CONVERSATION}) AS m,
           LATERAL (${pieceSelect('r.a', `(r.k + m) % ${PER.pieces}`)}) AS pc`),
  },
  {
    table: 'knowledge.pieces',
    rows: PER.pieces * ACCOUNTS,
    sql: statement(`INSERT INTO knowledge.pieces (account_id, external_ref, heading, text, url, lang, created_at, updated_at)
      SELECT ${accountId('r.a')}, pc.external_ref, pc.heading, ${pieceText('r.k')}, pc.url, 'english', t.at, t.at
      FROM ${ROWS}, ${ACCOUNT_ROW}, LATERAL (${pieceSelect('r.a', 'r.k')}) AS pc,
           LATERAL (SELECT ${spread('r.k + 1', PER.pieces, AGE_DAYS + 20)} AS at) AS t`),
  },
  {
    table: 'identity.issued_passes',
    rows: PER.passes * ACCOUNTS,
    // Expiring from 45 days ago to a day from now: a third expired more than RETENTION_DAYS ago.
    sql: statement(`INSERT INTO identity.issued_passes (jti, account_id, svc_id, kid, issued_at, expires_at)
      SELECT md5('volume-pass-' || i)::uuid, ${accountId('r.a')}, (r.k % ${PER.customers}) * ${ACCOUNTS} + r.a + 1, 'volume-bench',
             x.expires_at - interval '30 days', x.expires_at
      FROM ${ROWS}, ${ACCOUNT_ROW},
           LATERAL (SELECT p.t + interval '1 day' - interval '1 day' * 46 * ((${PER.passes} - r.k)::float8 / ${PER.passes}) AS expires_at) AS x`),
  },
];

/** Identity columns given explicit values by the load: their sequences continue after the largest. */
const IDENTITIES = [
  ['contacts.customers', 'svc_id'],
  ['webhooks.endpoints', 'id'],
  ['webhooks.deliveries', 'id'],
  ['chat.conversations', 'id'],
];
/** The apps whose migrations make the schemas (the gateway's ran with the admin CLI's account). */
const MIGRATED_APPS = ['contacts-api', 'events-api', 'webhook-dispatcher', 'chat', 'knowledge-api', 'identity-issuer'];
/** application_name of the hot paths' connections (the claim's is the bench's own). */
const HOT_APPS = new Set(['gateway', 'contacts-api', 'events-api', 'chat', 'knowledge-api', 'volume-bench-claim']);
/** The retention statements (PruneJob's `prune` of each app), by the job's name in its log line. */
const RETENTION_STATEMENTS = {
  events: /DELETE FROM events\.events WHERE ctid IN/,
  deliveries: /FROM webhooks\.deliveries\s+WHERE status <> 'pending' AND finished_at <|DELETE FROM webhooks\.endpoints e/,
  'pass records': /DELETE FROM identity\.issued_passes/,
};
/** @typedef {keyof typeof RETENTION_STATEMENTS} RetentionJob */

// ---- Databases ----

/**
 * @typedef {object} Side One scratch database: the loaded one, or (`empty`) the bench's account alone.
 * @property {'empty' | 'loaded'} name
 * @property {ReturnType<typeof import('./support.mjs').scratchDatabase>} database
 * @property {import('../libs/testing/src/index.js').TestVhost} vhost its own RabbitMQ vhost
 * @property {string} apiKey the bench's account's key
 * @property {Account} account the bench's account (made with the admin CLI)
 * @property {NodeJS.ProcessEnv} env the apps' environment
 */

/**
 * Makes every app's schema with its own migration step (the gateway's ran with the admin CLI's account).
 * @param {NodeJS.ProcessEnv} env
 */
function migrateSchemas(env) {
  for (const app of MIGRATED_APPS) {
    const migrated = spawnSync(process.execPath, [join(root, `dist/apps/${app}/src/migrate.js`)], { env, encoding: 'utf8' });
    if (migrated.status !== 0) throw new Error(`${app} migrate: ${migrated.stderr}`);
  }
}

/**
 * Loads every table (LOADERS, the endpoints) in batches, then sets the identities on and VACUUM ANALYZEs what it
 * loaded, as autovacuum would have by the time such a volume existed; prints and returns each one's time.
 * @param {Side} side
 */
async function loadRows(side) {
  const client = new pg.Client({ connectionString: side.database.url, application_name: 'volume-bench-load' });
  await client.connect();
  /** @type {Record<string, { rows: number, seconds: number }>} */
  const loads = {};
  /**
   * @param {string} table
   * @param {number} rows
   * @param {() => Promise<unknown>} work
   */
  const timedLoad = async (table, rows, work) => {
    const started = performance.now();
    await work();
    loads[table] = { rows, seconds: round2((performance.now() - started) / 1000) };
    console.log(`volume: ${side.name} ${table}: ${rows.toLocaleString('en')} rows in ${loads[table].seconds} s`);
  };
  try {
    await client.query('SET synchronous_commit = off');
    const at = new Date().toISOString();
    // The empty database holds account 0 alone: every ACCOUNTS-th row, the same as in the loaded one.
    const step = side.name === 'loaded' ? 1 : ACCOUNTS;
    for (const loader of LOADERS) {
      if (loader.fromOne && side.name === 'empty') continue;
      const first = loader.fromOne ? 1 : 0;
      if (first >= loader.rows) continue;
      const count = Math.ceil((loader.rows - first) / step);
      await timedLoad(loader.table, count * (loader.perRow ?? 1), async () => {
        for (let lo = first; lo < loader.rows; lo += BATCH * step) {
          const hi = Math.min(loader.rows - 1, lo + BATCH * step - 1);
          await client.query(loader.sql, [side.account.id, lo, hi, step, at]);
        }
      });
      if (loader.table === 'events.events')
        await timedLoad('webhooks.endpoints', step === 1 ? ACCOUNTS : 1, () => loadEndpoints(client, side, at));
    }
    loads['contacts.consents'].rows = (await client.query('SELECT count(*)::int AS n FROM contacts.consents')).rows[0].n;
    for (const [table, column] of IDENTITIES) {
      await client.query(`SELECT setval(pg_get_serial_sequence('${table}', '${column}'), (SELECT max(${column}) FROM ${table}))`);
    }
    await checkDeliveryBodies(client, side);
    await timedLoad('vacuum analyze', 0, async () => {
      for (const table of new Set([...LOADERS.map((l) => l.table), 'webhooks.endpoints'])) await client.query(`VACUUM (ANALYZE) ${table}`);
    });
  } finally {
    await client.end();
  }
  return loads;
}

/**
 * Throws unless the loaded deliveries of the bench's account hold what the dispatcher would have made of their
 * events: a recorded event it accepts, in the bytes of its `deliveryBody`.
 * @param {pg.Client} client
 * @param {Side} side
 */
async function checkDeliveryBodies(client, side) {
  const { rows } = await client.query('SELECT body FROM webhooks.deliveries WHERE account_id = $1 ORDER BY id LIMIT 20', [side.account.id]);
  for (const { body } of rows) {
    const event = JSON.parse(body.toString('utf8'));
    parseRecordedEvent({ account_id: side.account.id, event_id: randomUUID(), event });
    if (!deliveryBody(event).equals(body)) throw new Error(`a loaded delivery's body is not the dispatcher's: ${body.toString('utf8')}`);
  }
}

/**
 * One endpoint per account (taking every kind of event), its secret sealed with WEBHOOK_SECRET_KEY as the
 * dispatcher seals it (the account's id is part of the seal).
 * @param {pg.Client} client
 * @param {Side} side
 * @param {string} at
 */
async function loadEndpoints(client, side, at) {
  const box = new SecretBox(/** @type {string} */ (side.env.WEBHOOK_SECRET_KEY));
  const accounts = Array.from({ length: side.name === 'loaded' ? ACCOUNTS : 1 }, (_, n) => n);
  const ids = accounts.map((n) => accountUuid(n, side.account.id));
  await client.query(
    `INSERT INTO webhooks.endpoints (id, account_id, url, secret_sealed, created_at, status_changed_at)
     OVERRIDING SYSTEM VALUE
     SELECT n + 1, u.account_id, 'https://hooks.shop-' || n || '.example/svc', u.sealed, $4::timestamptz - interval '90 days', $4::timestamptz - interval '90 days'
     FROM unnest($1::int[], $2::uuid[], $3::bytea[]) AS u (n, account_id, sealed)`,
    [accounts, ids, ids.map((id) => box.seal(`whsec_${randomBytes(32).toString('base64url')}`, id)), at],
  );
}

// ---- The apps ----

/**
 * Ports for the apps of one database (freePort: reserved on this machine, so that no other suite takes them).
 * @param {readonly string[]} names
 */
async function portsFor(names) {
  /** @type {Record<string, number>} */
  const ports = {};
  for (const name of names) ports[name] = await freePort();
  return ports;
}

const APP_PORTS = ['contacts', 'knowledge', 'events', 'chat', 'gateway', 'dispatcher', 'identity', 'mcp', 'console', 'eventsRetention'];

/**
 * Starts the apps of a prepared database as in production: knowledge-api (its start-up timed), contacts-api,
 * events-api, the chat and the gateway, each told where the others listen (ports of their own) and how the hot paths
 * reach them; the stack's own events-api keeps its events (retention runs in replicas started for it).
 * @param {Side} side
 * @param {ChildProcess[]} children
 */
async function startApps(side, children, shards = 1) {
  const shardNames = Array.from({ length: shards }, (_, i) => `knowledge${i}`);
  const ports = await portsFor([...APP_PORTS, ...shardNames].flatMap((app) => [app, `${app}Internal`]));
  /** @param {string} app */
  const internal = (app) => `http://127.0.0.1:${ports[`${app}Internal`]}`;
  const env = {
    ...side.env,
    CONTACTS_API_URL: internal('contacts'),
    KNOWLEDGE_API_URL: internal(shards === 1 ? 'knowledge' : 'knowledge0'),
    KNOWLEDGE_SEARCH_URLS: shards === 1 ? '' : shardNames.map(internal).join(','),
    EVENTS_API_URL: internal('events'),
    CHAT_URL: internal('chat'),
    GATEWAY_URL: internal('gateway'),
    WEBHOOK_DISPATCHER_URL: internal('dispatcher'),
    IDENTITY_ISSUER_URL: internal('identity'),
    MCP_SERVER_URL: internal('mcp'),
    CONSOLE_URL: internal('console'),
    WRITE_LIMIT_PER_MINUTE: BENCH_WRITE_LIMIT,
    WRITE_LIMIT_PER_HOUR: BENCH_WRITE_LIMIT,
    EVENTS_RETENTION_DAYS: '36500',
    EVENTS_PRUNE_INTERVAL_MS: '86400000',
  };
  /**
   * @param {string} app
   * @param {string} key
   */
  const start = (app, key, more = {}) =>
    startApp(children, app, {
      port: ports[key],
      env: { ...env, ...more, INTERNAL_PORT: String(ports[`${key}Internal`]) },
      readyWithinS: KNOWLEDGE_READY_S,
    });
  // Each search shard's replica alone, timed from its start to its /readyz (its index built), as a pod of it starts.
  const knowledge = [];
  for (const [shard, key] of (shards === 1 ? ['knowledge'] : shardNames).entries()) {
    const started = performance.now();
    const child = await start('knowledge-api', key, { SEARCH_SHARD: `${shard}/${shards}` });
    knowledge.push({
      shard: `${shard}/${shards}`,
      pid: child.pid,
      start_ms: Math.round(performance.now() - started),
      rss_after_start_mib: rssMib(child.pid),
    });
  }
  const searchAt = shards === 1 ? 'knowledge' : `knowledge${searchShardOf(side.account.id, shards)}`;
  await start('contacts-api', 'contacts');
  await start('events-api', 'events');
  await start('chat', 'chat');
  await start('gateway', 'gateway');
  const dataSource = await createDataSource({
    schema: 'webhooks',
    url: side.database.url,
    migrations: [],
    poolSize: CONCURRENCY + 1,
    applicationName: 'volume-bench-claim',
  }).initialize();
  const deliveries = new DeliveriesRepository(dataSource);
  await deliveries.insertForEvents(dueEvents(side.account.id), { notify: false });
  const connections = CONCURRENCY + 8;
  return {
    ports,
    env,
    knowledge,
    gateway: new Pool(`http://127.0.0.1:${ports.gateway}`, { connections }),
    chat: new Pool(internal('chat'), { connections }),
    knowledgeApi: new Pool(internal(searchAt), { connections }),
    signers: { chat: InternalAuth.fromEnv('chat', env), console: InternalAuth.fromEnv('console', env) },
    dataSource,
    deliveries,
  };
}

/**
 * DUE_DELIVERIES events of the account after its loaded ones, as webhook-dispatcher is handed them (one delivery each).
 * @param {string} accountId
 * @returns {import('../apps/webhook-dispatcher/src/delivery/deliveries.repository.js').NewEvent[]}
 */
function dueEvents(accountId) {
  return Array.from({ length: DUE_DELIVERIES }, (_, n) => {
    const id = PER.events + 1 + n;
    const event = {
      id,
      event: /** @type {const} */ ('message.received'),
      at: new Date().toISOString().replace('Z', '000+00:00'),
      data: sampleEventData('message.received', { n }),
    };
    return { accountId, eventId: id, kind: event.event, body: deliveryBody(event) };
  });
}

/** @param {number | undefined} pid */
const rssMib = (pid) => round1(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

// ---- The hot paths ----

/**
 * A call; throws unless it answered 2xx. Returns the body.
 * @param {Pool} pool
 * @param {import('undici').Dispatcher.RequestOptions} options
 */
async function request(pool, options) {
  const response = await pool.request(options);
  const body = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`${options.method} ${options.path}: ${response.statusCode} ${body.slice(0, 300)}`);
  return body;
}

/**
 * The bench's account's customers as the load made them (k its number in the account, g = k × ACCOUNTS its row): the
 * emails (lower case), phones and refs the lookups and PUTs use.
 */
function benchCustomers() {
  const emails = [];
  const phones = [];
  const refs = [];
  for (let k = 0; k < PER.customers; k += 1) {
    const g = k * ACCOUNTS;
    if (k % 5 !== 4) emails.push(`customer.${g}@mail${g % 50}.example`);
    if (k % 5 !== 1 && k % 5 !== 3) phones.push(`+4477${String(g).padStart(8, '0')}`);
    if (k % 10 !== 9) refs.push(`cust-${k}`);
  }
  return { emails, phones, refs };
}

/** Questions about the bench's account's pieces (account 0's piece k, as `pieceSelect` makes it). */
function benchQuestions() {
  return Array.from({ length: Math.min(200, PER.pieces) }, (_, k) => {
    const product = PRODUCTS[k % PRODUCTS.length];
    const aspect = ASPECT_NAMES[Math.floor(k / PRODUCTS.length) % ASPECT_NAMES.length];
    const forms = QUESTION_FORMS[aspect];
    return forms[k % forms.length].replaceAll('{p}', product).replaceAll('{b}', BRANDS[(k * 7) % BRANDS.length]);
  });
}

/**
 * Each hot path of one database as a call (n: the call's number), resolving with what it answered.
 * @param {Side} side
 * @param {Awaited<ReturnType<typeof startApps>>} apps
 * @returns {Record<string, (n: number) => Promise<string>>}
 */
function hotPaths(side, apps) {
  const { emails, phones, refs } = benchCustomers();
  const questions = benchQuestions();
  const bearer = { authorization: `Bearer ${side.apiKey}` };
  /**
   * @param {'chat' | 'console'} caller
   * @param {string} audience
   */
  const signed = (caller, audience) =>
    apps.signers[caller].signReusable(audience, { account: side.account, keyId: 'volume-bench', requestId: '' });
  let renames = 0;
  return {
    'feed page': () => request(apps.gateway, { method: 'GET', path: `/api/v1/events?after=${FEED_AFTER}&limit=100`, headers: bearer }),
    'customer by email': (n) =>
      request(apps.gateway, {
        method: 'GET',
        path: `/api/v1/contacts?email=${encodeURIComponent(emails[n % emails.length])}`,
        headers: bearer,
      }),
    'customer by phone': (n) =>
      request(apps.gateway, {
        method: 'GET',
        path: `/api/v1/contacts?phone=${encodeURIComponent(phones[n % phones.length])}`,
        headers: bearer,
      }),
    'PUT customer': (n) =>
      request(apps.gateway, {
        method: 'PUT',
        path: `/api/v1/contacts/${refs[n % refs.length]}`,
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Customer renamed ${(renames += 1)}` }),
      }),
    'delivery claim': async () => {
      const claim = await apps.deliveries.claim({
        limit: 32,
        maxInFlightPerEndpoint: 32,
        maxInFlightPerAccount: 64,
        leaseMs: 1,
        token: randomUUID(),
      });
      return JSON.stringify({ deliveries: claim.deliveries.length });
    },
    'inbox page': async () =>
      request(apps.chat, {
        method: 'GET',
        path: '/internal/chat/conversations',
        headers: { 'x-svc-context': await signed('console', 'chat') },
      }),
    'knowledge search': async (n) =>
      request(apps.knowledgeApi, {
        method: 'POST',
        path: '/internal/knowledge/search',
        headers: { 'content-type': 'application/json', 'x-svc-context': await signed('chat', 'knowledge-api') },
        body: JSON.stringify({ question: questions[n % questions.length], lang: 'en', limit: 5 }),
      }),
  };
}

/** What each path's answer must hold for the measurement to mean anything: the items it returned. */
const ANSWERS = {
  'feed page': (/** @type {any} */ body) => body.events.length,
  'customer by email': (/** @type {any} */ body) => body.contacts.length,
  'customer by phone': (/** @type {any} */ body) => body.contacts.length,
  'PUT customer': (/** @type {any} */ body) => (body.svc_id ? 1 : 0),
  'delivery claim': (/** @type {any} */ body) => body.deliveries,
  'inbox page': (/** @type {any} */ body) => body.conversations.filter((/** @type {any} */ c) => c.contact !== null).length,
  'knowledge search': (/** @type {any} */ body) => body.results.length,
};

/**
 * Throws unless every path answers with items on this database.
 * @param {string} name
 * @param {Record<string, (n: number) => Promise<string>>} paths
 */
async function checkPaths(name, paths) {
  for (const [path, call] of Object.entries(paths)) {
    const items = ANSWERS[/** @type {keyof typeof ANSWERS} */ (path)](JSON.parse(await call(0)));
    if (!(items > 0)) throw new Error(`${name} ${path}: the answer holds nothing`);
  }
}

/**
 * `requests` calls of `call`, CONCURRENCY at once, each timed (ms); errors counted, the first kept.
 * @param {(n: number) => Promise<unknown>} call
 * @param {number} requests
 * @param {number} first the number of the first call
 */
async function timedCalls(call, requests, first) {
  /** @type {number[]} */
  const ms = [];
  let next = 0;
  let errors = 0;
  /** @type {string | undefined} */
  let error;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests) {
        const n = first + next++;
        const started = performance.now();
        try {
          await call(n);
        } catch (err) {
          errors += 1;
          error ??= /** @type {Error} */ (err).message;
        }
        ms.push(performance.now() - started);
      }
    }),
  );
  return { ms, errors, error };
}

/**
 * @param {number[]} ms
 * @param {number} errors
 * @returns {Latency}
 */
function latency(ms, errors) {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50_ms: round2(percentile(sorted, 50) ?? 0), p99_ms: round2(percentile(sorted, 99) ?? 0), calls: ms.length, errors };
}

/**
 * One path on both databases: a warm-up on each, then ROUNDS rounds taking turns (empty first, then loaded first, …),
 * REQUESTS calls on each database in all.
 * @param {string} path
 * @param {{ name: 'empty' | 'loaded', paths: Record<string, (n: number) => Promise<string>> }[]} sides
 */
async function measurePath(path, sides) {
  for (const side of sides) await timedCalls(side.paths[path], WARMUP, 0);
  /** @type {Record<string, { ms: number[], errors: number, error?: string }>} */
  const runs = Object.fromEntries(sides.map((side) => [side.name, { ms: [], errors: 0 }]));
  const perRound = Math.ceil(REQUESTS / ROUNDS);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const run = await timedCalls(side.paths[path], perRound, WARMUP + round * perRound);
      const kept = runs[side.name];
      kept.ms.push(...run.ms);
      kept.errors += run.errors;
      kept.error ??= run.error;
    }
  }
  const empty = latency(runs.empty.ms, runs.empty.errors);
  const loaded = latency(runs.loaded.ms, runs.loaded.errors);
  const p99Ratio = round2(loaded.p99_ms / empty.p99_ms);
  const figures = {
    empty,
    loaded,
    p50_ratio: round2(loaded.p50_ms / empty.p50_ms),
    p99_ratio: p99Ratio,
    within_target: p99Ratio <= TARGET_P99_RATIO,
    ...(runs.empty.error || runs.loaded.error ? { first_error: runs.empty.error ?? runs.loaded.error } : {}),
  };
  console.log(`volume: ${path}`, figures);
  return figures;
}

// ---- Retention under traffic ----

/**
 * Every path at once, one call in flight each, until stopped: each call's start (ms since the epoch) and time.
 * @param {Record<string, (n: number) => Promise<string>>} paths
 */
function mixedTraffic(paths) {
  let stopped = false;
  /** @type {Record<string, Array<{ at: number, ms: number, failed: boolean }>>} */
  const calls = Object.fromEntries(Object.keys(paths).map((path) => [path, []]));
  const running = Object.entries(paths).map(async ([path, call]) => {
    for (let n = 1_000_000; !stopped; n += 1) {
      const at = Date.now();
      const started = performance.now();
      const failed = await call(n).then(
        () => false,
        () => true,
      );
      calls[path].push({ at, ms: performance.now() - started, failed });
    }
  });
  return {
    stop: async () => {
      stopped = true;
      await Promise.all(running);
      return calls;
    },
  };
}

const ACTIVITY_SQL = `
  SELECT a.pid, a.application_name, a.wait_event_type, left(a.query, 400) AS query,
         extract(epoch FROM a.query_start)::float8 * 1000 AS query_start_ms,
         CASE WHEN a.wait_event_type = 'Lock' THEN pg_blocking_pids(a.pid) ELSE '{}'::int[] END AS blockers
    FROM pg_stat_activity a
   WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.state <> 'idle'`;

/**
 * The retention job a statement belongs to, if any.
 * @param {string} query
 * @returns {RetentionJob | undefined}
 */
const retentionJobOf = (query) =>
  /** @type {RetentionJob[]} */ (Object.keys(RETENTION_STATEMENTS)).find((job) => RETENTION_STATEMENTS[job].test(query));

/**
 * Samples pg_stat_activity (and pg_locks, through pg_blocking_pids) every SAMPLE_MS: when each retention job's
 * statements were seen running, and every wait on a lock of a hot path's statement, with what held the lock.
 * @param {string} url
 */
async function sampleLocks(url) {
  const client = new pg.Client({ connectionString: url, application_name: 'volume-bench-locks' });
  await client.connect();
  /** @type {Partial<Record<RetentionJob, { first: number, last: number }>>} */
  const seen = {};
  /** @type {Map<string, { app: string, query: string, first: number, last: number, blockers: Set<string> }>} */
  const waits = new Map();
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const at = Date.now();
      const { rows } = await client.query(ACTIVITY_SQL);
      samples += 1;
      /** @type {Map<number, RetentionJob>} */
      const retention = new Map();
      for (const row of rows) {
        const job = retentionJobOf(row.query);
        if (!job) continue;
        retention.set(row.pid, job);
        const span = (seen[job] ??= { first: at, last: at });
        span.last = at;
      }
      for (const row of rows) {
        if (row.wait_event_type !== 'Lock' || retention.has(row.pid) || !HOT_APPS.has(row.application_name)) continue;
        const key = `${row.pid}:${row.query_start_ms}`;
        const wait = waits.get(key) ?? { app: row.application_name, query: row.query, first: at, last: at, blockers: new Set() };
        wait.last = at;
        for (const pid of row.blockers) wait.blockers.add(retention.get(pid) ?? 'other');
        waits.set(key, wait);
      }
      const pause = SAMPLE_MS - (Date.now() - at);
      if (pause > 0) await sleep(pause);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      await client.end();
      return { seen, waits: [...waits.values()], samples };
    },
  };
}

/**
 * The retention jobs as each app runs them (PruneJob), in replicas started for it on the loaded database: events-api,
 * webhook-dispatcher (delivering nothing) and identity-issuer, at RETENTION_DAYS with a pass every PRUNE_INTERVAL_MS.
 * `done` resolves once each has logged its first pass's result (`pruned old …`, or its failure).
 * @param {Awaited<ReturnType<typeof startApps>>} apps
 * @param {ChildProcess[]} children
 */
async function startRetention(apps, children) {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jobs = [
    {
      app: 'events-api',
      ports: [await freePort(), await freePort()],
      env: { EVENTS_RETENTION_DAYS: String(RETENTION_DAYS), EVENTS_PRUNE_INTERVAL_MS: String(PRUNE_INTERVAL_MS) },
    },
    {
      app: 'webhook-dispatcher',
      ports: [apps.ports.dispatcher, apps.ports.dispatcherInternal],
      env: {
        WEBHOOK_CONCURRENCY: '0',
        WEBHOOK_RETENTION_DAYS: String(RETENTION_DAYS),
        WEBHOOK_PRUNE_INTERVAL_MS: String(PRUNE_INTERVAL_MS),
      },
    },
    {
      app: 'identity-issuer',
      ports: [apps.ports.identity, apps.ports.identityInternal],
      env: {
        IDENTITY_SIGNING_KEYS: JSON.stringify({ ...privateKey.export({ format: 'jwk' }), kid: 'volume-bench' }),
        IDENTITY_PASS_RETENTION_DAYS: String(RETENTION_DAYS),
        IDENTITY_PRUNE_INTERVAL_MS: String(PRUNE_INTERVAL_MS),
      },
    },
  ];
  /** @type {Partial<Record<RetentionJob, { removed: number, at: number, failed?: string }>>} */
  const results = {};
  /** @type {ChildProcess[]} */
  const processes = [];
  const starting = jobs.map(({ app, ports: [port, internalPort], env }) => {
    const started = startApp(children, app, {
      port,
      env: { ...apps.env, INTERNAL_PORT: String(internalPort), LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // startApp adds the process to `children` at once: its log is read from the start. Its times have whole
    // seconds, so a line is timed when it is read.
    const child = /** @type {ChildProcess} */ (children.at(-1));
    processes.push(child);
    createInterface({ input: /** @type {import('node:stream').Readable} */ (child.stdout) }).on('line', (line) => {
      const entry = /** @type {{ msg?: string, removed?: number, err?: string }} */ (parseJson(line));
      const done = /^pruned old (.+)$/.exec(entry.msg ?? '') ?? /^pruning old (.+) failed$/.exec(entry.msg ?? '');
      const job = /** @type {RetentionJob | undefined} */ (done?.[1]);
      if (job && job in RETENTION_STATEMENTS && !results[job])
        results[job] = { removed: entry.removed ?? 0, at: Date.now(), ...(entry.err ? { failed: entry.err } : {}) };
    });
    return started;
  });
  await Promise.all(starting);
  const readyAt = Date.now();
  const done = (async () => {
    const deadline = Date.now() + RETENTION_TIMEOUT_S * 1000;
    while (Object.keys(results).length < jobs.length && Date.now() < deadline) await sleep(100);
  })();
  return { processes, results, readyAt, done };
}

/** @param {string} line */
function parseJson(line) {
  try {
    return JSON.parse(line);
  } catch {
    return {};
  }
}

/**
 * Retention while every hot path runs on the loaded database: BASELINE_S seconds of traffic, then the retention jobs
 * until each has finished its first pass, the locks sampled all along. Returns the jobs' results, the lock waits and
 * the paths' latency before and during retention.
 * @param {Side} side
 * @param {Awaited<ReturnType<typeof startApps>>} apps
 * @param {Record<string, (n: number) => Promise<string>>} paths
 * @param {ChildProcess[]} children
 */
async function retentionUnderTraffic(side, apps, paths, children) {
  const sampler = await sampleLocks(side.database.url);
  const traffic = mixedTraffic(paths);
  const baselineFrom = Date.now();
  await sleep(BASELINE_S * 1000);
  const baselineTo = Date.now();
  console.log('volume: retention starting under traffic');
  const retention = await startRetention(apps, children);
  await retention.done;
  await sleep(2 * SAMPLE_MS);
  const calls = await traffic.stop();
  const { seen, waits, samples } = await sampler.stop();
  await stopProcesses(retention.processes);

  const spans = Object.values(seen);
  const finished = Object.values(retention.results).map((r) => r.at);
  const from = Math.min(...spans.map((s) => s.first), retention.readyAt + PRUNE_INTERVAL_MS);
  const to = Math.max(...spans.map((s) => s.last), ...finished, from);
  /** @param {typeof waits} list */
  const summed = (list) => ({
    waits: list.length,
    longest_ms: list.reduce((longest, w) => Math.max(longest, w.last - w.first + SAMPLE_MS), 0),
    examples: list
      .sort((a, b) => b.last - b.first - (a.last - a.first))
      .slice(0, 3)
      .map((w) => ({ app: w.app, observed_ms: w.last - w.first + SAMPLE_MS, held_by: [...w.blockers], query: w.query.slice(0, 160) })),
  });
  const onRetention = waits.filter((w) => [...w.blockers].some((b) => b !== 'other'));
  return {
    retention_days: RETENTION_DAYS,
    prune_interval_ms: PRUNE_INTERVAL_MS,
    jobs: Object.fromEntries(
      Object.keys(RETENTION_STATEMENTS).map((job) => {
        const result = retention.results[/** @type {RetentionJob} */ (job)];
        const span = seen[/** @type {RetentionJob} */ (job)];
        return [
          job,
          {
            removed: result?.removed ?? null,
            ...(result?.failed ? { failed: result.failed } : {}),
            statements_seen_s: span ? round2((span.last - span.first + SAMPLE_MS) / 1000) : 0,
            first_pass_s: result && span ? round2((result.at - span.first) / 1000) : null,
          },
        ];
      }),
    ),
    window_s: round2((to - from) / 1000),
    lock_samples: samples,
    hot_path_lock_waits_on_retention: summed(onRetention),
    hot_path_lock_waits_other: summed(waits.filter((w) => !onRetention.includes(w))),
    paths: Object.fromEntries(
      Object.entries(calls).map(([path, list]) => {
        /** @param {number} a @param {number} b */
        const within = (a, b) => list.filter((c) => c.at >= a && c.at <= b);
        const before = within(baselineFrom, baselineTo);
        const during = within(from, to);
        const [b, d] = [before, during].map((l) =>
          latency(
            l.map((c) => c.ms),
            l.filter((c) => c.failed).length,
          ),
        );
        return [path, { before: b, during: d, p99_ratio: round2(d.p99_ms / b.p99_ms) }];
      }),
    ),
  };
}

/**
 * One knowledge-api holding every account of the loaded database (SEARCH_SHARD 0/1), started alone after the rest:
 * its start-up to /readyz and its memory, or why it never got ready. Stopped at once.
 * @param {NodeJS.ProcessEnv} env the loaded stack's
 * @param {ChildProcess[]} children
 */
async function wholeIndex(env, children) {
  const [port, internalPort] = [await freePort(), await freePort()];
  const started = performance.now();
  /** @type {ChildProcess[]} */
  const own = [];
  try {
    const child = await startApp(own, 'knowledge-api', {
      port,
      env: { ...env, SEARCH_SHARD: '0/1', INTERNAL_PORT: String(internalPort) },
      readyWithinS: KNOWLEDGE_READY_S,
    });
    return { shard: '0/1', start_ms: Math.round(performance.now() - started), rss_after_start_mib: rssMib(child.pid) };
  } catch (err) {
    return { shard: '0/1', error: /** @type {Error} */ (err).message, after_ms: Math.round(performance.now() - started) };
  } finally {
    await stopProcesses(own);
    children.push(...own.filter((child) => child.exitCode === null && child.signalCode === null));
  }
}

// ---- The run ----

/** @type {ChildProcess[]} */
const children = [];
/** @type {Array<() => Promise<unknown>>} */
const cleanups = [];
/** @type {Record<string, unknown>} */
const result = {
  benchmark: 'hot paths on an empty and a loaded database, retention under traffic, knowledge-api at volume',
  at: new Date().toISOString(),
};
try {
  const secretKey = randomBytes(32).toString('base64');
  const totals = Object.fromEntries(Object.entries(PER).map(([kind, n]) => [kind, n * ACCOUNTS]));
  console.log(`volume: scale ${SCALE}: ${ACCOUNTS} accounts`, totals);
  const check = detectLanguage(`${ASPECTS.shipping.join(' ')} ${FILLER.join(' ')}`);
  if (check !== 'english') throw new Error(`the pieces' words read as ${check}, not english`);

  /** @type {Side[]} */
  const sides = [];
  /** @type {Record<string, Record<string, { rows: number, seconds: number }>>} */
  const loads = {};
  for (const name of /** @type {const} */ (['empty', 'loaded'])) {
    const { database, env, apiKey, account } = await benchDatabase(LOG_LEVEL);
    cleanups.push(() => database.drop());
    const vhost = await createTestVhost();
    cleanups.push(() => vhost.drop());
    const side = { name, database, vhost, apiKey, account, env: { ...env, RABBITMQ_URL: vhost.url, WEBHOOK_SECRET_KEY: secretKey } };
    migrateSchemas(side.env);
    loads[name] = await loadRows(side);
    sides.push(side);
  }
  const loaded = sides[1];
  /** @type {Awaited<ReturnType<typeof startApps>>[]} */
  const stacks = [];
  for (const side of sides) {
    const apps = await startApps(side, children, side === loaded ? SEARCH_SHARDS : 1);
    cleanups.unshift(
      () => apps.dataSource.destroy(),
      () => apps.gateway.close(),
      () => apps.chat.close(),
      () => apps.knowledgeApi.close(),
    );
    stacks.push(apps);
  }
  const measured = sides.map((side, i) => ({ name: side.name, paths: hotPaths(side, stacks[i]) }));
  for (const side of measured) await checkPaths(side.name, side.paths);

  /** @type {Record<string, Awaited<ReturnType<typeof measurePath>>>} */
  const paths = {};
  for (const path of Object.keys(measured[0].paths)) paths[path] = await measurePath(path, measured);
  const knowledgeRss = stacks.map((apps) => apps.knowledge.map((replica) => rssMib(replica.pid)));
  const retention = await retentionUnderTraffic(loaded, stacks[1], measured[1].paths, children);
  const whole = await wholeIndex(stacks[1].env, children);

  const loadedSeconds = Object.values(loads.loaded).reduce((sum, l) => sum + l.seconds, 0);
  const [emptyPieces, loadedPieces] = [PER.pieces, PER.pieces * ACCOUNTS];
  Object.assign(result, {
    machine: machine({
      note: 'one machine: the load generator, PostgreSQL, RabbitMQ and two sets of apps (one per database) share its cores',
    }),
    scale: SCALE,
    counts: {
      accounts: ACCOUNTS,
      loaded: { ...totals, messages: totals.conversations * MESSAGES_PER_CONVERSATION, attempts: totals.deliveries },
      per_account: PER,
      empty: "the bench's account alone, with the same rows of its own as in the loaded database",
    },
    settings: {
      requests_per_path_and_database: REQUESTS,
      rounds: ROUNDS,
      concurrency: CONCURRENCY,
      warmup: WARMUP,
      feed_after: FEED_AFTER,
      rows_age_days: AGE_DAYS,
      log_level: LOG_LEVEL,
      node_env: 'production',
    },
    load: {
      empty: loads.empty,
      loaded: loads.loaded,
      loaded_seconds: round1(loadedSeconds),
      full_scale_estimate_s: Math.round(loadedSeconds / SCALE),
      note: 'the estimate for scale 1 is linear in the rows; index maintenance grows faster than that',
    },
    target: { p99_ratio_max: TARGET_P99_RATIO },
    paths,
    retention,
    knowledge_api: {
      empty: { pieces: emptyPieces, ...stacks[0].knowledge[0], rss_after_paths_mib: knowledgeRss[0][0], pid: undefined },
      loaded_shards: stacks[1].knowledge.map((replica, i) => ({
        ...replica,
        pid: undefined,
        pieces_about: Math.round(loadedPieces / SEARCH_SHARDS),
        rss_after_paths_mib: knowledgeRss[1][i],
      })),
      loaded_whole: { pieces: loadedPieces, ...whole },
      mib_per_100k_pieces:
        whole.rss_after_start_mib !== undefined && loadedPieces > emptyPieces
          ? round1(((whole.rss_after_start_mib - stacks[0].knowledge[0].rss_after_start_mib) / (loadedPieces - emptyPieces)) * 100_000)
          : null,
      limits: { rss_mib: 1024, start_s: 60 },
    },
  });
  console.table(
    Object.fromEntries(
      Object.entries(paths).map(([path, f]) => [
        path,
        {
          'empty p50': f.empty.p50_ms,
          'empty p99': f.empty.p99_ms,
          'loaded p50': f.loaded.p50_ms,
          'loaded p99': f.loaded.p99_ms,
          'p99 ×': f.p99_ratio,
          '≤ 1.5×': f.within_target,
          'retention p99': retention.paths[path].during.p99_ms,
        },
      ]),
    ),
  );
  const shardLines = stacks[1].knowledge.map((r) => `shard ${r.shard} ready in ${r.start_ms} ms, ${r.rss_after_start_mib} MiB`);
  const wholeLine = whole.error ?? `ready in ${whole.start_ms} ms, ${whole.rss_after_start_mib} MiB`;
  console.log(`volume: knowledge-api on the loaded database: ${shardLines.join('; ')}; one replica holding every account: ${wholeLine}`);
  if (Object.values(paths).some((f) => f.empty.errors + f.loaded.errors > 0)) process.exitCode = 1;
} finally {
  await stopProcesses(children);
  for (const cleanup of cleanups) await cleanup().catch((err) => console.error('volume: cleanup:', err.message));
}
writeAndPrintResult('volume', /** @type {string} */ (result.at), result);
