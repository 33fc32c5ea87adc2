// npm run bench:webhooks — webhook delivery on this machine, to a real https receiver (test CA):
//   1. latency from the insert of an event (DeliveryService.recordEvent: the transaction that makes
//      its deliveries commits) to its receipt, at a steady 200 events/s to 3 endpoints (600
//      deliveries/s), p50/p99
//   2. the highest sustained rate to one fast receiver: a backlog of deliveries drained by one
//      dispatcher process, deliveries per second
//   3. the whole path at a steady 200 events/s to 3 endpoints: from the producer's commit (its
//      outbox) through its relay, RabbitMQ, events-api (feed id, its outbox and relay), RabbitMQ and
//      the dispatcher (one process consuming and delivering, as deployed) to receipt, p50/p99
// The dispatcher runs as in production (NODE_ENV=production, default delivery settings) except that
// it may call 127.0.0.1 and trusts the test CA. Needs `npm run build`, PostgreSQL and RabbitMQ on
// 127.0.0.1. Writes bench/results/webhooks-*.json.
import { createRequire } from 'node:module';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { atSteadyRate, machine, percentile, root, startReceiverProcess, writeAndPrintResult } from './support.mjs';

const require = createRequire(import.meta.url);
/** @type {typeof import('../libs/testing/src/index.js')} */
const { startStack, startApp, startRelay, createTestCa, TestProducer } = require(join(root, 'dist/libs/testing/src/index.js'));
/** @type {typeof import('../libs/persistence/src/index.js')} */
const { createDataSource } = require(join(root, 'dist/libs/persistence/src/index.js'));
/** @type {typeof import('../libs/contracts/src/index.js')} */
const { sampleEventData } = require(join(root, 'dist/libs/contracts/src/index.js'));
/** @type {typeof import('../apps/webhook-dispatcher/src/delivery/deliveries.repository.js')} */
const { DeliveriesRepository } = require(join(root, 'dist/apps/webhook-dispatcher/src/delivery/deliveries.repository.js'));
/** @typedef {import('../apps/webhook-dispatcher/src/delivery/deliveries.repository.js').DeliveriesRepository} DeliveriesRepository */
/**
 * delivery.service.ts's DeliveryService as far as the bench uses it, written out: importing its types would bring in
 * @svc/webhook-signing, an ES module package whose sources' extensionless imports nodenext refuses.
 * @type {{
 *   DeliveryService: new (repository: DeliveriesRepository) => {
 *     recordEvent(recorded: import('../libs/contracts/src/index.js').RecordedEvent): Promise<void>
 *   }
 * }}
 */
const { DeliveryService } = require(join(root, 'dist/apps/webhook-dispatcher/src/delivery/delivery.service.js'));

const STEADY_RATE = Number(process.env.BENCH_RATE ?? 200);
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_S ?? 20);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_S ?? 3);
const ENDPOINTS = 3;
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 20_000);

/** @param {number} ms */
const round = (ms) => Math.round(ms * 10) / 10;

const ca = createTestCa();
const receiver = await startReceiverProcess(ca);
const dispatcherEnv = {
  NODE_ENV: 'production',
  WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_CA_FILE: ca.caFile,
};
// The stack's dispatcher serves the API only; deliveries are made by `worker`, started per phase.
const stack = await startStack(['events-api', 'webhook-dispatcher'], {
  env: { LOG_LEVEL: 'warn' },
  appEnv: {
    'webhook-dispatcher': { ...dispatcherEnv, WEBHOOK_CONCURRENCY: '0' },
    'events-api': { NODE_ENV: 'production' },
    gateway: { NODE_ENV: 'production' },
  },
});
const startWorker = () => startApp('webhook-dispatcher', { ...stack.env, ...dispatcherEnv });
const db = await createDataSource({ schema: 'webhooks', url: stack.db.url, migrations: [], poolSize: 8 }).initialize();
const deliveries = new DeliveryService(new DeliveriesRepository(db));

let nextId = 1;
/**
 * The event source: what events-api does for each recorded event (the lead extends this to the producer).
 * @param {string} accountId
 */
async function produce(accountId) {
  const id = nextId++;
  /** @type {import('../libs/contracts/src/index.js').PublicEvent} */
  const event = {
    id,
    event: 'message.received',
    at: new Date().toISOString().replace('Z', '000+00:00'),
    data: sampleEventData('message.received', { n: id }),
  };
  const started = Date.now();
  await deliveries.recordEvent({ account_id: accountId, event_id: randomUUID(), event });
  return { id, started, committed: Date.now() };
}

/**
 * p50, p99 and max of latencies sorted ascending.
 * @param {number[]} sorted
 */
const latencySummary = (sorted) => ({
  p50_ms: round(percentile(sorted, 50)),
  p99_ms: round(percentile(sorted, 99)),
  max_ms: round(/** @type {number} */ (sorted.at(-1))),
});

/**
 * @param {import('../libs/testing/src/index.js').TestAccount} account
 * @param {number} count
 */
async function registerEndpoints(account, count) {
  const paths = [];
  for (let i = 0; i < count; i++) {
    const path = `/${account.accountId}/${i}`;
    const response = await stack.call('/webhooks', {
      method: 'POST',
      key: account.key,
      json: { url: receiver.url(path), events: ['message.received'] },
    });
    if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
    paths.push(path);
  }
  return paths;
}

/**
 * @param {string[]} paths
 * @param {number} perPath
 * @param {number} timeoutMs
 */
async function waitForAll(paths, perPath, timeoutMs) {
  for (const path of paths) await receiver.waitFor(path, perPath, timeoutMs);
}

/** @type {import('../libs/testing/src/index.js').RunningApp | undefined} */
let worker;
/** @type {import('../libs/testing/src/index.js').RunningProcess | undefined} */
let relay;
/** @type {import('../libs/testing/src/index.js').TestProducer | undefined} */
let producer;
try {
  // 1. Steady rate to 3 endpoints: insert → receipt.
  const steady = await stack.newAccount('Steady');
  const steadyPaths = await registerEndpoints(steady, ENDPOINTS);
  worker = await startWorker();
  /** @type {Map<string, number>} */
  const startedAt = new Map();
  /** @type {number[]} */
  const insertMs = [];
  // The first WARMUP_SECONDS at the same rate open connections and warm the JIT; they are not measured.
  const warmup = STEADY_RATE * WARMUP_SECONDS;
  const total = warmup + STEADY_RATE * STEADY_SECONDS;
  await atSteadyRate(total, STEADY_RATE, (n) =>
    produce(steady.accountId).then(({ id, started, committed }) => {
      if (n < warmup) return;
      startedAt.set(String(id), started);
      insertMs.push(committed - started);
    }),
  );
  await waitForAll(steadyPaths, total, 60_000);
  const latencies = (await Promise.all(steadyPaths.map((path) => receiver.received(path))))
    .flat()
    .filter((r) => startedAt.has(r.eventId))
    .map((r) => r.receivedAt - /** @type {number} */ (startedAt.get(r.eventId)))
    .sort((a, b) => a - b);
  const steadyResult = {
    events_per_s: STEADY_RATE,
    endpoints: ENDPOINTS,
    seconds: STEADY_SECONDS,
    warmup_seconds: WARMUP_SECONDS,
    deliveries: latencies.length,
    ...latencySummary(latencies),
    insert_p50_ms: round(
      percentile(
        insertMs.sort((a, b) => a - b),
        50,
      ),
    ),
    insert_p99_ms: round(percentile(insertMs, 99)),
  };
  console.log('steady', steadyResult);

  // 2. Highest sustained rate to one fast receiver: a backlog inserted while no worker runs, then drained.
  await worker.stop();
  const burst = await stack.newAccount('Burst');
  const [burstPath] = await registerEndpoints(burst, 1);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next++ < BACKLOG) await produce(burst.accountId);
    }),
  );
  worker = await startWorker();
  await receiver.waitFor(burstPath, BACKLOG, 300_000);
  const times = (await receiver.received(burstPath)).map((r) => r.receivedAt).sort((a, b) => a - b);
  // The middle 90%: start-up and the last stragglers are not the sustained rate.
  const from = times[Math.floor(BACKLOG * 0.05)];
  const to = times[Math.floor(BACKLOG * 0.95)];
  const last = /** @type {number} */ (times.at(-1));
  const burstResult = {
    backlog: BACKLOG,
    deliveries_per_s: Math.round((0.9 * BACKLOG) / ((to - from) / 1000)),
    drained_in_s: round((last - times[0]) / 1000),
  };
  console.log('sustained', burstResult);

  // 3. The whole path at a steady rate: producer commit → receipt.
  producer = await TestProducer.create(stack.db.url);
  relay = await startRelay({ DATABASE_URL: stack.db.url, RABBITMQ_URL: stack.env.RABBITMQ_URL });
  const full = await stack.newAccount('Full path');
  const fullPaths = await registerEndpoints(full, ENDPOINTS);
  // As in production, one dispatcher process both consumes the recorded events and delivers them
  // (leasing the deliveries it makes to itself): the API-only dispatcher of the stack leaves, and
  // the worker, warm from phase 2, takes every message.
  await stack.services['webhook-dispatcher'].stop();
  const committedAt = new Map();
  const fullTotal = STEADY_RATE * (WARMUP_SECONDS + STEADY_SECONDS);
  const fullWarmup = STEADY_RATE * WARMUP_SECONDS;
  await atSteadyRate(fullTotal, STEADY_RATE, (n) =>
    /** @type {import('../libs/testing/src/index.js').TestProducer} */ (producer) // created above
      .emit('message.received', full.accountId, n)
      .then(() => n >= fullWarmup && committedAt.set(90_000 + n, Date.now())),
  );
  await waitForAll(fullPaths, fullTotal, 120_000);
  const fullLatencies = (await Promise.all(fullPaths.map((path) => receiver.received(path))))
    .flat()
    .map((r) => ({ r, marker: JSON.parse(r.body).data.message.id }))
    .filter(({ marker }) => committedAt.has(marker))
    .map(({ r, marker }) => r.receivedAt - committedAt.get(marker))
    .sort((a, b) => a - b);
  const fullResult = {
    events_per_s: STEADY_RATE,
    endpoints: ENDPOINTS,
    seconds: STEADY_SECONDS,
    deliveries: fullLatencies.length,
    ...latencySummary(fullLatencies),
  };
  console.log('whole path', fullResult);

  const result = {
    benchmark: 'webhook deliveries to a real https receiver',
    date: new Date().toISOString(),
    machine: machine({
      note: 'one machine: the receiver (a process of its own), the load generator, RabbitMQ, PostgreSQL and every app share its cores',
    }),
    settings: {
      dispatcher: 'NODE_ENV=production, default WEBHOOK_CONCURRENCY and WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT',
      latency_from: {
        steady: 'the start of recordEvent (the insert transaction) to receipt',
        whole_path_from_producer_commit: "the producer's commit to receipt",
      },
    },
    steady: steadyResult,
    sustained_one_receiver: burstResult,
    whole_path_from_producer_commit: fullResult,
    // Issue 6's latency targets are for the whole path, from the producer's commit.
    targets: { whole_path_p50_ms: 60, whole_path_p99_ms: 250, sustained_deliveries_per_s: 1000 },
  };
  writeAndPrintResult('webhooks', result.date, result);
} finally {
  await relay?.stop();
  await producer?.close();
  await worker?.stop();
  await db.destroy();
  await stack.stop();
  await receiver.close();
  ca.remove();
}
