// npm run bench:path — the event path end to end on this machine: a visitor's message, from its 201
// (POST /chat/v1/messages through the gateway) to its message.received webhook at a real https
// receiver (a process of its own, test CA), paced at each of BENCH_RATES messages per second (50 and
// 200) for BENCH_SECONDS (60) after a warm-up, the assistant answering every message. Between the two
// the message crosses the chat's commit, its outbox relay, RabbitMQ, events-api (feed id, its outbox
// and relay), RabbitMQ, the dispatcher's insert and its attempt. p50/p90/p99/max per rate.
//
// With BENCH_TRACE_RATIO (for example 0.1) every app traces as in production (k8s/components/tracing)
// to a sink here, and the result says where the time went: for each sampled message, the time of
// each hop, read from its trace (the gaps between the spans of the chat, events-api and the
// dispatcher), p50/p99 per hop.
//
// Every app runs as in production (NODE_ENV=production) except that the dispatcher may call
// 127.0.0.1 and trusts the test CA, and the visitor limits are out of reach (one address sends
// everything). Needs `npm run build`, PostgreSQL, RabbitMQ and Redis on 127.0.0.1. Writes
// bench/results/path-*.json. BENCH_VISITORS (100) conversations take turns.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { atSteadyRate, machine, percentile, root, round1, startReceiverProcess, traceSink, writeAndPrintResult } from './support.mjs';

/** @typedef {import('./support.mjs').SinkSpan} SinkSpan */

const require = createRequire(import.meta.url);
/** @type {typeof import('../libs/testing/src/index.js')} */
const { startStack, createTestCa } = require(join(root, 'dist/libs/testing/src/index.js'));

const RATES = (process.env.BENCH_RATES ?? '50,200').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_S ?? 5);
const VISITORS = Number(process.env.BENCH_VISITORS ?? 100);
const TARGETS = { p50_ms: 25, p99_ms: 100 };
const PIECES = {
  shipping: { heading: 'Shipping', text: 'We ship every order within two working days; tracking numbers come by email.' },
  returns: { heading: 'Returns', text: 'You can return any item within 30 days of delivery for a full refund.' },
  hours: { heading: 'Opening hours', text: 'The shop is open Monday to Saturday from 9 to 18.' },
};
const QUESTIONS = ['How long does shipping take?', 'Can I return an item?', 'When are you open?', 'Do you sell gift cards?'];

/**
 * p50, p90, p99 and max of latencies sorted ascending.
 * @param {number[]} sorted
 */
const summary = (sorted) => ({
  samples: sorted.length,
  p50_ms: round1(percentile(sorted, 50)),
  p90_ms: round1(percentile(sorted, 90)),
  p99_ms: round1(percentile(sorted, 99)),
  max_ms: round1(/** @type {number} */ (sorted.at(-1))),
});

const sink = await traceSink({ keepSpans: true });
const ca = createTestCa();
const receiver = await startReceiverProcess(ca);
const stack = await startStack(['contacts-api', 'knowledge-api', 'events-api', 'webhook-dispatcher', 'chat'], {
  env: {
    ...sink.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    VISITOR_MESSAGES_PER_MINUTE: '1000000',
    VISITOR_STREAMS_PER_ACCOUNT: '1000000',
  },
  appEnv: { 'webhook-dispatcher': { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CA_FILE: ca.caFile } },
  startTimeoutMs: 60_000,
});

/** @type {Record<string, unknown>} */
const result = { benchmark: "a visitor's message (its 201) to its message.received webhook", at: new Date().toISOString() };
try {
  const { widget } = /** @type {{ widget: string }} */ (await (await stack.call('/whoami')).json());
  for (const [ref, piece] of Object.entries(PIECES)) {
    const put = await stack.call(`/knowledge/${ref}`, { method: 'PUT', json: piece });
    if (put.status !== 201) throw new Error(`PUT /knowledge/${ref}: ${put.status}`);
  }
  const hook = await stack.call('/webhooks', { method: 'POST', json: { url: receiver.url('/path'), events: ['message.received'] } });
  if (hook.status !== 201) throw new Error(`POST /webhooks: ${hook.status} ${await hook.text()}`);

  const pool = new Pool(stack.gateway.url, { connections: 256, pipelining: 1 });
  /** @type {Array<{ token: string, conversation: number }>} */
  const visitors = [];
  for (let i = 0; i < VISITORS; i += 1) {
    const response = await pool.request({
      method: 'POST',
      path: '/chat/v1/sessions',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ widget }),
    });
    if (response.statusCode !== 201) throw new Error(`session: ${response.statusCode}`);
    const session = /** @type {{ token: string, conversation: { id: number } }} */ (await response.body.json());
    visitors.push({ token: session.token, conversation: session.conversation.id });
  }

  /** The 201 of each measured message, by `conversation:message`, and the time its call took. */
  /** @type {Map<string, number>} */
  const answeredAt = new Map();
  /** @type {number[]} */
  const callMs = [];
  let sent = 0;
  /** @type {Record<string, unknown>} */
  const rates = {};
  /** When each rate's measured messages were sent (ms since the epoch), to tell their traces apart. */
  /** @type {Array<{ rate: number, from: number, to: number }>} */
  const windows = [];
  for (const rate of RATES) {
    const warmup = rate * WARMUP_SECONDS;
    const total = warmup + rate * SECONDS;
    const measured = new Set();
    callMs.length = 0;
    const begun = performance.now();
    const from = Date.now() + WARMUP_SECONDS * 1000;
    await atSteadyRate(total, rate, async (n) => {
      const visitor = visitors[n % VISITORS];
      const started = performance.now();
      const response = await pool.request({
        method: 'POST',
        path: '/chat/v1/messages',
        headers: { authorization: `Bearer ${visitor.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text: QUESTIONS[n % QUESTIONS.length] }),
      });
      const at = Date.now();
      if (response.statusCode !== 201) throw new Error(`message: ${response.statusCode} ${await response.body.text()}`);
      const { message } = /** @type {{ message: { id: number } }} */ (await response.body.json());
      const key = `${visitor.conversation}:${message.id}`;
      if (n >= warmup) {
        answeredAt.set(key, at);
        measured.add(key);
        callMs.push(performance.now() - started);
      }
    });
    const pacedFor = (performance.now() - begun) / 1000;
    sent += total;
    await receiver.waitFor('/path', sent, 120_000);
    rates[rate] = { measured, pacedFor, call: summary(callMs.slice().sort((a, b) => a - b)) };
    windows.push({ rate, from, to: Date.now() });
  }

  const received = await receiver.received('/path');
  /** @type {Map<string, number>} */
  const receivedAt = new Map();
  for (const r of received) {
    const { data } = /** @type {{ data: { conversation: { id: number }, message: { id: number } } }} */ (JSON.parse(r.body));
    const key = `${data.conversation.id}:${data.message.id}`;
    receivedAt.set(key, r.receivedAt);
  }
  /** @type {Record<string, unknown>} */
  const byRate = {};
  for (const rate of RATES) {
    const { measured, pacedFor, call } = /** @type {{ measured: Set<string>, pacedFor: number, call: ReturnType<typeof summary> }} */ (
      rates[rate]
    );
    const latencies = [...measured]
      .map((key) => /** @type {number} */ (receivedAt.get(key)) - /** @type {number} */ (answeredAt.get(key)))
      .filter((ms) => Number.isFinite(ms))
      .sort((a, b) => a - b);
    const summed = summary(latencies);
    byRate[`${rate}_per_s`] = {
      messages_per_s: rate,
      paced_at_per_s: round1((rate * (WARMUP_SECONDS + SECONDS)) / pacedFor),
      seconds: SECONDS,
      webhook_after_201: summed,
      message_call: call,
      pass: summed.p50_ms <= TARGETS.p50_ms && summed.p99_ms <= TARGETS.p99_ms,
    };
    console.log(`bench:path ${rate}/s:`, byRate[`${rate}_per_s`]);
  }
  result.rates = byRate;
  await pool.close();
  // Spans still buffered in the apps are exported within a second (OTEL_BSP_SCHEDULE_DELAY).
  if (sink.tracing) await sleep(2_000);
  result.hops = sink.tracing
    ? Object.fromEntries(windows.map(({ rate, from, to }) => [`${rate}_per_s`, hopSummary(sink.spans(), from, to)]))
    : null;
} finally {
  result.machine = machine({
    note: 'one machine: the receiver (a process of its own), the load generator, RabbitMQ, PostgreSQL and every app share its cores',
  });
  result.settings = { rates: RATES, seconds: SECONDS, warmup_s: WARMUP_SECONDS, visitors: VISITORS, node_env: 'production' };
  result.tracing = sink.tracing && { sampled_ratio: sink.tracing.ratio, exports_received: sink.tracing.exports() };
  result.targets = TARGETS;
  await stack.stop();
  await Promise.all([receiver.close(), sink.close()]);
  ca.remove();
}
writeAndPrintResult('path', /** @type {string} */ (result.at), result);

/**
 * Where a message's time went, from the traces of the messages that were sampled: each hop is the
 * time from the end or start of one span to the start of the next, per trace, p50/p99 in ms.
 * @param {SinkSpan[]} spans
 * @param {number} from the traces of messages sent from then (ms since the epoch)
 * @param {number} to and until then
 */
function hopSummary(spans, from, to) {
  /** @type {Map<string, SinkSpan[]>} */
  const traces = new Map();
  for (const span of spans) {
    const trace = traces.get(span.traceId) ?? [];
    trace.push(span);
    traces.set(span.traceId, trace);
  }
  /**
   * The trace's earliest span of `service` that `match` takes.
   * @param {SinkSpan[]} trace
   * @param {string} service
   * @param {(s: SinkSpan) => boolean} match
   */
  const first = (trace, service, match) => trace.filter((s) => s.service === service && match(s)).sort((a, b) => a.startMs - b.startMs)[0];
  /** @type {Record<string, number[]>} */
  const hops = {
    'chat: the 201 (its POST span)': [],
    'chat: commit to its relay publishing': [],
    'RabbitMQ to events-api': [],
    'events-api: append and its relay publishing': [],
    'RabbitMQ to the dispatcher': [],
    'dispatcher: insert and lease to the attempt': [],
    'dispatcher: the attempt (TLS, the receiver)': [],
  };
  let complete = 0;
  for (const trace of traces.values()) {
    const post = first(trace, 'chat', (s) => s.kind === 2 && s.name.startsWith('POST'));
    const relay = first(trace, 'chat', (s) => s.kind === 4 && s.name.startsWith('publish'));
    const append = first(trace, 'events-api', (s) => s.kind === 5);
    const republish = first(trace, 'events-api', (s) => s.kind === 4);
    const consume = first(trace, 'webhook-dispatcher', (s) => s.kind === 5);
    const attempt = first(trace, 'webhook-dispatcher', (s) => s.name === 'webhook message.received');
    if (!post || !relay || !append || !republish || !consume || !attempt || post.startMs < from || post.startMs > to) continue;
    complete += 1;
    hops['chat: the 201 (its POST span)'].push(post.endMs - post.startMs);
    hops['chat: commit to its relay publishing'].push(relay.startMs - post.endMs);
    hops['RabbitMQ to events-api'].push(append.startMs - relay.startMs);
    hops['events-api: append and its relay publishing'].push(republish.startMs - append.startMs);
    hops['RabbitMQ to the dispatcher'].push(consume.startMs - republish.startMs);
    hops['dispatcher: insert and lease to the attempt'].push(attempt.startMs - consume.startMs);
    hops['dispatcher: the attempt (TLS, the receiver)'].push(attempt.endMs - attempt.startMs);
  }
  return {
    traces_complete: complete,
    note: 'the chat hop from the end of its POST span: a relay round can start before the 201 leaves',
    ...Object.fromEntries(
      Object.entries(hops).map(([hop, values]) => {
        const sorted = values.sort((a, b) => a - b);
        return [hop, { p50_ms: round1(percentile(sorted, 50) ?? 0), p99_ms: round1(percentile(sorted, 99) ?? 0) }];
      }),
    ),
  };
}
