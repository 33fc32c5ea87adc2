// npm run bench:events — the event pipeline end to end on this machine: a producer commits events
// to its outbox, its relay (a separate process) publishes them, events-api appends them to the
// feed, a reader polls GET /api/v1/events through the gateway.
//   1. latency from the producer's commit to visibility in the feed at a steady 200 events/s
//   2. the highest sustained rate: producers writing as fast as they can, events visible per second
//   3. feed read throughput: GET /events?limit=200 with autocannon, in events per second
// Needs `npm run build`, PostgreSQL and RabbitMQ on 127.0.0.1. Writes bench/results/events-*.json.
import autocannon from 'autocannon';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { machine, percentile, root, writeAndPrintResult } from './support.mjs';

const require = createRequire(import.meta.url);
/** @type {typeof import('../libs/testing/src/index.js')} */
const { startStack, startRelay, TestProducer } = require(join(root, 'dist/libs/testing/src/index.js'));
/** @typedef {{ id: number, data: { message: { id: number } } }} FeedEvent a message event of the feed (the producer's marker in its id) */

const STEADY_RATE = Number(process.env.BENCH_RATE ?? 200);
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_S ?? 15);
const BURST_EVENTS = Number(process.env.BENCH_BURST_EVENTS ?? 20_000);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 4);
const BATCH = 20; // events per producer transaction in the sustained run

/** @param {FeedEvent} event */
const marker = (event) => event.data.message.id - 90_000;

const stack = await startStack(['events-api'], {
  env: { LOG_LEVEL: 'warn' },
  appEnv: { 'events-api': { NODE_ENV: 'production' }, gateway: { NODE_ENV: 'production' } },
});
const producer = await TestProducer.create(stack.db.url);
const relay = await startRelay({ DATABASE_URL: stack.db.url, RABBITMQ_URL: stack.env.RABBITMQ_URL });

/**
 * Polls the feed of an account continuously; calls `seen(event, time)` for each new event.
 * @param {{ key: string }} account
 * @param {(event: FeedEvent, now: number) => void} seen
 */
function follow(account, seen) {
  let stopped = false;
  const done = (async () => {
    let after = 0;
    while (!stopped) {
      const response = await stack.call(`/events?after=${after}&limit=200`, { key: account.key });
      const body = /** @type {{ events: FeedEvent[], next_after: number, more: boolean }} */ (await response.json());
      const now = performance.now();
      for (const event of body.events) seen(event, now);
      after = body.next_after;
      if (!body.more) await sleep(1);
    }
  })();
  return async () => {
    stopped = true;
    await done;
  };
}

try {
  // 1. Steady rate: commit time → first seen in the feed.
  const steady = await stack.newAccount('Steady');
  const committed = new Map();
  /** @type {number[]} */
  const latencies = [];
  const stopFollowing = follow(steady, (event, now) => latencies.push(now - committed.get(marker(event))));
  const total = STEADY_RATE * STEADY_SECONDS;
  const start = performance.now();
  const inFlight = [];
  for (let n = 1; n <= total; n++) {
    const due = start + ((n - 1) * 1000) / STEADY_RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    inFlight.push(producer.emit('message.received', steady.accountId, n).then(() => committed.set(n, performance.now())));
  }
  await Promise.all(inFlight);
  while (latencies.length < total) await sleep(10);
  await stopFollowing();
  latencies.sort((a, b) => a - b);
  const steadyResult = {
    rate_per_s: STEADY_RATE,
    events: total,
    p50_ms: Math.round(percentile(latencies, 50) * 10) / 10,
    p99_ms: Math.round(percentile(latencies, 99) * 10) / 10,
    max_ms: Math.round(/** @type {number} */ (latencies.at(-1)) * 10) / 10,
  };
  console.log('steady', steadyResult);

  // 2. Highest sustained rate: writers on 3 accounts committing batches as fast as they go;
  //    visible events per second.
  const accounts = await Promise.all([stack.newAccount('Burst A'), stack.newAccount('Burst B'), stack.newAccount('Burst C')]);
  let visible = 0;
  let lastSeen = 0;
  const stops = accounts.map((a) =>
    follow(a, (_e, now) => {
      visible += 1;
      lastSeen = now;
    }),
  );
  let next = 1;
  const burstStart = performance.now();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (next <= BURST_EVENTS) {
        const first = next;
        next += BATCH;
        const ns = Array.from({ length: Math.min(BATCH, BURST_EVENTS - first + 1) }, (_, i) => first + i);
        await producer.emitMany('message.received', accounts[first % 3].accountId, ns);
      }
    }),
  );
  const producedIn = performance.now() - burstStart;
  while (visible < BURST_EVENTS) await sleep(10);
  await Promise.all(stops.map((s) => s()));
  const burstResult = {
    events: BURST_EVENTS,
    writers: WRITERS,
    events_per_transaction: BATCH,
    produced_per_s: Math.round(BURST_EVENTS / (producedIn / 1000)),
    visible_per_s: Math.round(BURST_EVENTS / ((lastSeen - burstStart) / 1000)),
  };
  console.log('sustained', burstResult);

  // 3. Feed reads: full pages of 200 through the gateway.
  const read = await autocannon({
    url: `${stack.gateway.url}/api/v1/events?after=0&limit=200`,
    headers: { authorization: `Bearer ${accounts[0].key}` },
    connections: 20,
    duration: 10,
  });
  const readResult = {
    requests_per_s: Math.round(read.requests.average),
    events_per_s: Math.round(read.requests.average * 200),
    p50_ms: read.latency.p50,
    p99_ms: read.latency.p99,
    errors: read.errors + read.non2xx,
  };
  console.log('feed reads', readResult);

  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    steady: steadyResult,
    sustained: burstResult,
    feed_reads: readResult,
    targets: { steady_p50_ms: 30, steady_p99_ms: 150, sustained_per_s: 1000 },
  };
  writeAndPrintResult('events', result.date, result);
} finally {
  await relay.stop();
  await producer.close();
  await stack.stop();
}
