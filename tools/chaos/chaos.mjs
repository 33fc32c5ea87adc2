// npm run chaos — two replicas of every app behind HAProxy, a real workload through the public
// origin, faults on a seeded schedule (kill -9 and SIGSTOP of replicas, RabbitMQ, PostgreSQL and
// Redis restarts), then a checker that reads back everything that was acknowledged. Runs what
// dist/ holds (builds it first when it lacks an app). Needs haproxy, PostgreSQL's server binaries
// (a private server is made), redis-server and the shared RabbitMQ on 127.0.0.1 (a vhost of its
// own; the broker is restarted once).
// Settings: CHAOS_SEED, CHAOS_MINUTES (10), CHAOS_BASELINE_SECONDS (60), CHAOS_ACCOUNTS (3),
// CHAOS_VISITORS (4 per account), CHAOS_SPEED (1: each client's pause between two operations is
// divided by it; the load grows with it and with the accounts and visitors), CHAOS_DRAIN_SECONDS (240),
// CHAOS_PORT_BASE (17000). Prints and keeps the acknowledged operations per second without faults
// and under faults. Writes bench/results/chaos-*.json (or CHAOS_RESULT_FILE).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { internalKeys, machine, root, round1, seededRandom, writeResult } from '../../bench/support.mjs';
import { checkDeliveries, checkFeedAndChat, checkServerErrors, checkWrites, readFeed } from './checker.mjs';
import { startCluster } from './cluster.mjs';
import { describeFault, faultSchedule, runFaults } from './faults.mjs';
import {
  createRecorder,
  createWriteModel,
  FeedReader,
  mcpAgent,
  seedPieces,
  settle,
  startReceiver,
  visitor,
  backend,
} from './workload.mjs';

/** @typedef {import('./workload.mjs').Account} Account */
/** @typedef {import('./cluster.mjs').Replica} Replica */

const startedAt = new Date();
/** @param {string} line */
const log = (line) => process.stdout.write(`[${((Date.now() - startedAt.getTime()) / 1000).toFixed(1).padStart(6)} s] ${line}\n`);

// A fresh clone is built first (SWC: seconds); a built tree is run as it is.
const built = ['dist/libs/testing/src/index.js', ...readdirSync(join(root, 'apps')).map((a) => `dist/apps/${a}/src/main.js`)];
if (!built.every((file) => existsSync(join(root, file)))) {
  console.log('chaos: dist/ is incomplete; running `npm run build` first');
  if (spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) {
    console.error('chaos: `npm run build` failed');
    process.exit(2);
  }
}
if (spawnSync('haproxy', ['-v']).status !== 0) {
  console.error('chaos: haproxy is not installed (bash scripts/install-test-tools.sh installs it, or apt-get install haproxy)');
  process.exit(2);
}

const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const minutes = Number(process.env.CHAOS_MINUTES ?? 10);
const baselineS = Number(process.env.CHAOS_BASELINE_SECONDS ?? 60);
const accountCount = Number(process.env.CHAOS_ACCOUNTS ?? 3);
const visitorsPerAccount = Number(process.env.CHAOS_VISITORS ?? 4);
const drainS = Number(process.env.CHAOS_DRAIN_SECONDS ?? 240);
const speed = Number(process.env.CHAOS_SPEED ?? 1);
if (!(speed > 0)) throw new Error('CHAOS_SPEED must be a number above 0');
/**
 * Seconds between two operations of a client, from and to, at CHAOS_SPEED.
 * @param {number} low
 * @param {number} high
 * @returns {[number, number]}
 */
const pace = (low, high) => [low / speed, high / speed];
const random = seededRandom(seed);
const faultS = Math.round(minutes * 60);

// Ports of the run's own, below the blocks Jest suites take theirs from (20000 and up, libs/testing
// freePort): a port a killed replica leaves free for seconds must not be taken by another suite's app.
// A block of 100 is the run's while it holds the block's first port: a second run takes the next one.
const PORT_BLOCK = 100;
/**
 * A server listening on `port`, or null when the port is taken.
 * @param {number} port
 * @returns {Promise<import('node:net').Server | null>}
 */
const bind = (port) =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null)).listen(port, '127.0.0.1', () => resolve(server));
  });
let blockLock = null;
let nextPort = Number(process.env.CHAOS_PORT_BASE ?? 17_000);
for (; !(blockLock = await bind(nextPort)); nextPort += PORT_BLOCK)
  if (nextPort >= 20_000 - PORT_BLOCK) throw new Error('chaos: no free port block');
blockLock.unref();
nextPort += 1;
async function freePort() {
  for (;;) {
    const server = await bind(nextPort++);
    if (server) {
      await new Promise((resolve) => server.close(resolve));
      return nextPort - 1;
    }
  }
}

const dir = mkdtempSync(join(tmpdir(), 'svc-chaos-'));
// The replicas run a copy of dist/ made now: a build during the run (another change) must not give
// a restarted replica other code than its sibling's.
cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true });
symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
/** @type {typeof import('../../libs/testing/src/index.js')} */
const testing = createRequire(import.meta.url)(join(dir, 'dist/libs/testing/src/index.js'));
/** @type {(() => Promise<unknown>)[]} */
const cleanups = [];
/** @type {Promise<void> | null} */
let cleaning = null;
/** Undoes everything the run did, last first: faults in effect, processes, the private servers, the vhost. */
const cleanup = () =>
  (cleaning ??= (async () => {
    for (const undo of cleanups.reverse()) await undo().catch((err) => log(`cleanup: ${err.message}`));
  })());
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    log(`${signal}: restoring the services and stopping`);
    void cleanup().then(() => process.exit(130));
  });

let exitCode = 1;
try {
  log(
    `chaos: seed ${seed}, ${minutes} min of faults after a ${baselineS} s baseline, ${accountCount} accounts × ${visitorsPerAccount} visitors at speed ${speed}; logs in ${dir}`,
  );
  const postgres = await testing.PrivatePostgres.create(await freePort());
  cleanups.push(() => postgres.destroy());
  const database = await testing.createTestDatabase(postgres.serverUrl);
  const redis = await testing.startPrivateRedis(10_000, { port: await freePort() });
  cleanups.push(() => redis.stop());
  const vhost = await testing.createTestVhost();
  cleanups.push(() => vhost.drop());
  const ca = testing.createTestCa();
  cleanups.push(async () => ca.remove());
  const receiver = await startReceiver(ca, seed);
  cleanups.push(() => receiver.close());

  const env = {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '4',
    RABBITMQ_URL: vhost.url,
    REDIS_URL: redis.url,
    ...internalKeys(),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_CA_FILE: ca.caFile,
    WEBHOOK_RETRY_SCHEDULE: '1s,2s,5s,10s,20s,30s',
    VISITOR_CONVERSATIONS_PER_ADDRESS: '100000',
  };
  log('starting two replicas of every app behind HAProxy');
  const cluster = await startCluster({
    dir,
    env,
    appEnv: { chat: { TRUST_PROXY: 'loopback' }, gateway: { TRUST_PROXY: 'loopback' } },
    freePort,
    root: dir,
    log,
  });
  cleanups.push(() => cluster.stop());
  log(`public origin ${cluster.publicUrl} (HAProxy over ${cluster.replicas.length} replicas)`);
  const api = `${cluster.publicUrl}/api/v1`;

  const schedule = faultSchedule(
    random,
    faultS,
    cluster.replicas.map((r) => r.name),
  );
  log(`fault schedule (seed ${seed}), from the end of the baseline:\n${schedule.map(describeFault).join('\n')}`);

  // Accounts, each with two webhook endpoints (message.received only; every kind) and knowledge to answer from.
  const { accounts: accountsService, dataSource } = await testing.accountsFor(database.url);
  const setupRecorder = createRecorder();
  /** @type {Account[]} */
  const accounts = [];
  for (let i = 0; i < accountCount; i += 1) {
    const created = await accountsService.createAccount(`Chaos ${i}`, 'scale');
    /** @type {Account} */
    const account = { accountId: created.account.id, key: created.apiKey, endpoints: [] };
    const auth = { authorization: `Bearer ${account.key}` };
    const whoami = await settle(setupRecorder, `${api}/whoami`, { headers: auth });
    account.widget = whoami.body.widget;
    for (const [name, events] of /** @type {[string, string[] | null][]} */ ([
      ['a', ['message.received']],
      ['b', null],
    ])) {
      const path = `/${name}/${i}`;
      const r = await settle(setupRecorder, `${api}/webhooks`, {
        method: 'POST',
        headers: { ...auth, 'idempotency-key': `setup-${name}-${i}` },
        json: { url: receiver.url(path), ...(events ? { events } : {}) },
      });
      if (r.outcome !== 'acked') throw new Error(`cannot register a webhook: ${r.status} ${JSON.stringify(r.body)}`);
      account.endpoints.push({ path, events, secret: r.body.secret });
    }
    const bulk = await settle(setupRecorder, `${api}/knowledge/bulk`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': `seed-${i}` },
      json: { items: seedPieces() },
    });
    if (bulk.outcome !== 'acked') throw new Error(`cannot seed knowledge: ${bulk.status}`);
    accounts.push(account);
  }
  await dataSource.destroy();

  // The workload, from now until `stopWork`.
  const recorder = createRecorder();
  const model = createWriteModel();
  /** @type {import('./workload.mjs').Conversation[]} */
  const conversations = [];
  /** @type {Map<string, FeedReader>} */
  const readers = new Map();
  let stopWork = false;
  const stop = () => stopWork;
  /** @type {Promise<unknown>[]} */
  const workers = [];
  accounts.forEach((account, i) => {
    /** @param {number} n */
    const r = (n) => seededRandom(seed * 31 + i * 1009 + n);
    workers.push(backend({ api, key: account.key, accountId: account.accountId, random: r(1), recorder, model, stop, paceS: pace(1, 3) }));
    workers.push(
      mcpAgent({
        base: cluster.publicUrl,
        key: account.key,
        accountId: account.accountId,
        random: r(2),
        recorder,
        model,
        stop,
        paceS: pace(6, 12),
      }),
    );
    for (let v = 0; v < visitorsPerAccount; v += 1)
      workers.push(
        visitor({
          base: cluster.publicUrl,
          widget: account.widget,
          accountId: account.accountId,
          name: `v${i}.${v}`,
          address: `198.51.100.${i * visitorsPerAccount + v + 1}`,
          random: r(10 + v),
          recorder,
          conversations,
          stop,
          paceS: pace(4, 10),
        }),
      );
    const reader = new FeedReader({ api, key: account.key, recorder });
    readers.set(account.accountId, reader);
    workers.push(reader.run(stop));
  });
  const loadTimer = setInterval(
    () => log(`load average ${spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.trim()}`),
    30_000,
  );
  cleanups.push(async () => clearInterval(loadTimer));

  const baselineFrom = Date.now();
  log(`baseline: ${baselineS} s without faults`);
  await sleep(baselineS * 1000);
  const faultsFrom = Date.now();
  /**
   * The replica's current process (every replica was started).
   * @param {Replica} r
   */
  const current = (r) => /** @type {import('./cluster.mjs').Incarnation} */ (r.incarnations.at(-1));
  for (const r of cluster.replicas) current(r).warmRssKb = cluster.rssKb(r);
  // A replica restarted later is weighed once it has served for a minute.
  const warmTimer = setInterval(() => {
    for (const r of cluster.replicas) {
      const inc = current(r);
      if (inc.warmRssKb === null && inc.readyAt && Date.now() - inc.readyAt > 60_000) inc.warmRssKb = cluster.rssKb(r);
    }
  }, 1000);
  cleanups.push(async () => clearInterval(warmTimer));

  log(`faults: ${minutes} min`);
  const services = {
    rabbitmq: { stop: testing.stopBroker, start: testing.startBroker },
    postgresql: { stop: () => postgres.stop(), start: () => postgres.start() },
    redis: { stop: () => redis.stop(), start: () => redis.start() },
  };
  const faults = runFaults({ schedule, startedAt: faultsFrom, cluster, services, log });
  cleanups.push(() => faults.restoreAll());
  await sleep(faultS * 1000);
  await faults.done;
  const faultsTo = Date.now();
  log('faults over; waiting for every replica to be ready');
  await cluster.allReady();

  log('stopping the workload');
  stopWork = true;
  await Promise.all(workers);
  const workTo = Date.now();

  // Drain: the feed stops growing, every stream has caught up and every subscribed event has arrived.
  log(`draining (at most ${drainS} s)`);
  /** @type {Map<string, import('./workload.mjs').FeedEvent[]>} */
  const feeds = new Map();
  const drainDeadline = Date.now() + drainS * 1000;
  for (let last = -1, stableSince = Date.now(); Date.now() < drainDeadline; await sleep(2000)) {
    for (const a of accounts) feeds.set(a.accountId, await readFeed(api, a.key, recorder));
    const total = [...feeds.values()].reduce((n, f) => n + f.length, 0);
    if (total !== last) [last, stableSince] = [total, Date.now()];
    const deliveries = checkDeliveries({ accounts, feeds, receiver });
    if (Date.now() - stableSince > 10_000 && deliveries.lost === 0) break;
  }
  for (const reader of readers.values()) await reader.catchUp();
  for (const c of conversations) {
    const r = await settle(recorder, `${cluster.publicUrl}/chat/v1/conversation`, { headers: { authorization: `Bearer ${c.token}` } });
    c.messages = /** @type {import('./workload.mjs').ChatMessage[]} */ (r.body?.messages ?? []);
    const last = Math.max(0, ...c.messages.map((m) => m.id));
    for (const end = Date.now() + 20_000; c.stream.lastId < last && Date.now() < end;) await sleep(200);
    await c.stream.close();
  }
  const drainedAt = Date.now();

  log('checking');
  const writes = await checkWrites({ api, accounts, model, recorder: createRecorder() });
  const chat = checkFeedAndChat({ feeds, readers, conversations, accounts });
  const deliveries = checkDeliveries({ accounts, feeds, receiver });
  const errors = checkServerErrors(recorder, faults.windows);
  const memory = cluster.replicas.flatMap((r) => {
    const inc = current(r);
    const endKb = Number(cluster.rssKb(r)); // null (no /proc entry) as 0, as the arithmetic below took it
    return inc.warmRssKb
      ? [{ replica: r.name, warm_mib: round1(inc.warmRssKb / 1024), end_mib: round1(endKb / 1024), ratio: round1(endKb / inc.warmRssKb) }]
      : [];
  });
  const tooBig = memory.filter((m) => m.ratio > 1.5);
  /**
   * @param {number} from
   * @param {number} to
   */
  const rate = (from, to) => round1(recorder.acked.filter((a) => a.at >= from && a.at < to).length / ((to - from) / 1000));
  const throughput = { baseline_per_s: rate(baselineFrom, faultsFrom), faults_per_s: rate(faultsFrom, faultsTo) };
  const crashes = cluster.replicas.reduce((n, r) => n + r.crashes, 0);
  const startFailures = cluster.replicas.reduce((n, r) => n + r.startFailures, 0);

  const lost = writes.lost + chat.lost + deliveries.lost;
  const duplicated = chat.duplicated;
  const unexpected5xx = errors.unexpected;
  const W = recorder.acked.filter((a) => a.kind === 'write' || a.kind === 'mcp-write').length;
  const violations = [
    ...(writes.refusedApplied ? [`${writes.refusedApplied} refused writes applied`] : []),
    ...(chat.disorder ? [`${chat.disorder} events or messages out of order`] : []),
    ...(deliveries.wrongAccount ? [`${deliveries.wrongAccount} deliveries not signed for their account`] : []),
    ...(deliveries.changedBody ? [`${deliveries.changedBody} deliveries with another body than the feed's`] : []),
    ...tooBig.map((m) => `${m.replica} grew from ${m.warm_mib} MiB to ${m.end_mib} MiB (×${m.ratio})`),
    ...(throughput.faults_per_s < throughput.baseline_per_s / 2
      ? [`throughput under faults ${throughput.faults_per_s}/s is below half of ${throughput.baseline_per_s}/s`]
      : []),
    ...(crashes ? [`${crashes} ready replicas exited by themselves`] : []),
  ];

  const result = {
    at: startedAt.toISOString(),
    seed,
    settings: {
      minutes,
      baseline_s: baselineS,
      accounts: accountCount,
      visitors_per_account: visitorsPerAccount,
      speed,
      replicas_per_app: 2,
    },
    machine: machine({ loadavg: spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.trim() }),
    schedule,
    faults_applied: faults.applied,
    counts: {
      writes: W,
      events: chat.events,
      deliveries: deliveries.deliveries,
      replies: chat.replies,
      conversations: conversations.length,
      messages_acknowledged: conversations.reduce((n, c) => n + c.sent.length, 0),
      messages_unknown: conversations.reduce((n, c) => n + c.unknown.length, 0),
      keys_checked: writes.checked,
      refused_writes: model.refused.length,
      receiver_requests: receiver.requests.length,
      start_failures: startFailures,
      stream_reconnects: conversations.reduce((n, c) => n + c.stream.reconnects, 0),
      expected_503: errors.expected503,
      transport_errors: recorder.transportErrors,
      refusals_429: recorder.refusals,
      statuses: recorder.statuses,
    },
    throughput,
    memory,
    durations_s: {
      faults: round1((faultsTo - faultsFrom) / 1000),
      stop_workload: round1((workTo - faultsTo) / 1000),
      drain: round1((drainedAt - workTo) / 1000),
    },
    lost,
    duplicated,
    unexpected_5xx: unexpected5xx,
    violations,
    problems: [...writes.problems, ...chat.problems, ...deliveries.problems, ...errors.problems].slice(0, 200),
  };
  // bench/results/chaos-<day>.json, or CHAOS_RESULT_FILE (the outage test's, outside the tree).
  const file = process.env.CHAOS_RESULT_FILE ?? writeResult('chaos', startedAt.toISOString(), result);
  if (process.env.CHAOS_RESULT_FILE) writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  for (const p of result.problems.slice(0, 40)) log(`problem: ${p}`);
  for (const v of violations) log(`violation: ${v}`);
  log(`throughput: ${throughput.baseline_per_s} acknowledged operations/s without faults, ${throughput.faults_per_s}/s under faults`);
  log(`memory: ${memory.map((m) => `${m.replica} ×${m.ratio}`).join(', ')}`);
  log(`result: ${file}`);
  exitCode = lost || duplicated || unexpected5xx || violations.length ? 1 : 0;
  if (exitCode === 0) rmSync(dir, { recursive: true, force: true });
  else log(`the replicas' logs are kept in ${dir}`);
  await cleanup();
  console.log(
    `chaos: ${W} writes, ${chat.events} events, ${deliveries.deliveries} deliveries, ${chat.replies} replies; lost ${lost}, duplicated ${duplicated}, unexpected_5xx ${unexpected5xx}`,
  );
} catch (err) {
  log(`chaos: the run failed: ${/** @type {Error} */ (err).stack ?? err}`);
  log(`the replicas' logs are kept in ${dir}`);
  await cleanup();
}
process.exit(exitCode);
