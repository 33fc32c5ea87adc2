// What the benchmarks share: a scratch database, starting a built app, waiting for it and stopping the
// processes they started, their settings, reproducible randomness, the statistics they report, the
// CPU time of a process and the writing of their results.
import { fork, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createRequire } from 'node:module';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * @typedef {{ requests_per_s: number, p50_ms: number, p99_ms: number, errors: number }} Figures one measurement, as the
 *   benchmarks report it
 */

/** A database of its own on the test server (TEST_DATABASE_SERVER_URL): `create()` it, `drop()` it at the end. */
export function scratchDatabase() {
  const server = process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `svc_bench_${randomBytes(4).toString('hex')}`;
  /** @param {string} sql */
  const onServer = async (sql) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  return {
    url: Object.assign(new URL(server), { pathname: `/${name}` }).toString(),
    create: () => onServer(`CREATE DATABASE ${name}`),
    drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * A scratch database, created, holding a Scale account made with the admin CLI: the database (to
 * `drop()` at the end), the environment of the apps on it (`productionEnv` at `logLevel`), the
 * account and its API key.
 * @param {string} logLevel
 */
export async function benchDatabase(logLevel) {
  const database = scratchDatabase();
  await database.create();
  const env = productionEnv(database, logLevel);
  return { database, env, ...createBenchAccount(env) };
}

/**
 * Resolves once `url/readyz` answers 2xx (polled every 100 ms, `tries` times); fails at once when
 * `alive` (the process's) turns false.
 * @param {string} url
 * @param {number} [tries]
 * @param {() => boolean} [alive]
 */
export async function waitReady(url, tries = 300, alive = () => true) {
  for (let i = 0; i < tries; i += 1) {
    if (!alive()) throw new Error(`${url}: the process exited before it was ready`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // starting
    }
    await sleep(100);
  }
  throw new Error(`${url} not ready`);
}

/**
 * Starts the built app `app` (dist/apps/<app>/src/main.js) on PORT `port` with `env`, adds its
 * process to `children` at once (so that `stopProcesses(children)` stops it even when it never gets
 * ready) and resolves with that process once it is ready. Its output goes to this process's unless `stdio` says otherwise.
 * @param {import('node:child_process').ChildProcess[]} children
 * @param {string} app
 * @param {{ port: number, env: NodeJS.ProcessEnv, stdio?: import('node:child_process').StdioOptions, readyWithinS?: number }} options
 */
export async function startApp(children, app, { port, env, stdio = ['ignore', 'inherit', 'inherit'], readyWithinS = 30 }) {
  const child = spawn(process.execPath, [join(root, `dist/apps/${app}/src/main.js`)], { env: { ...env, PORT: String(port) }, stdio });
  children.push(child);
  // A process that exits before it is ready fails the start at once, not after readyWithinS.
  await waitReady(`http://127.0.0.1:${port}`, readyWithinS * 10, () => child.exitCode === null && child.signalCode === null);
  return child;
}

/**
 * Sends SIGTERM to `children` (spawned processes) and resolves once every one has exited.
 * @param {import('node:child_process').ChildProcess[]} children
 */
export async function stopProcesses(children) {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(
    children.map(
      (child) => new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r(undefined) : child.on('exit', r))),
    ),
  );
}

/**
 * The settings of a bench measured in rounds: BENCH_ROUNDS rounds of BENCH_DURATION_S seconds over
 * BENCH_CONNECTIONS connections, from the environment or else `defaults`.
 * @param {{ rounds: number, duration: number, connections: number }} defaults
 */
export const roundSettings = (defaults) => ({
  rounds: Number(process.env.BENCH_ROUNDS ?? defaults.rounds),
  duration: Number(process.env.BENCH_DURATION_S ?? defaults.duration),
  connections: Number(process.env.BENCH_CONNECTIONS ?? defaults.connections),
});

/**
 * A Scale account made with the admin CLI in `env`'s database: its API key and account.
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ apiKey: string, account: import('../libs/contracts/src/index.js').GatewayContext['account'] }}
 */
export function createBenchAccount(env) {
  const created = spawnSync(
    process.execPath,
    [join(root, 'dist/apps/admin/src/main.js'), 'account', 'create', '--name', 'Bench', '--plan', 'scale'],
    { env, encoding: 'utf8' },
  );
  if (created.status !== 0) throw new Error(created.stderr);
  const { api_key: apiKey, account } = JSON.parse(created.stdout);
  return { apiKey, account };
}

/**
 * A reproducible random number in [0, 1) per call (mulberry32 from `seed`).
 * @param {number} seed
 * @returns {() => number}
 */
export function seededRandom(seed) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** @param {number[]} values */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/**
 * @param {number[]} sorted ascending
 * @param {number} p
 */
export const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
/** @param {number} n */
export const round1 = (n) => Math.round(n * 10) / 10;
/** @param {number} n */
export const round2 = (n) => Math.round(n * 100) / 100;
/** @param {number} n */
export const round3 = (n) => Math.round(n * 1000) / 1000;
/**
 * An autocannon result as the benchmarks report it: requests/s, p50 and p99 in ms, errors.
 * @param {import('autocannon').Result} r
 * @returns {Figures}
 */
export const measured = (r) => ({
  requests_per_s: Math.round(r.requests.average),
  p50_ms: r.latency.p50,
  p99_ms: r.latency.p99,
  errors: r.errors + r.non2xx,
});
/**
 * The median of each figure over several runs; errors added up.
 * @param {Figures[]} runs
 * @returns {Figures}
 */
export const summary = (runs) => ({
  requests_per_s: median(runs.map((r) => r.requests_per_s)),
  p50_ms: median(runs.map((r) => r.p50_ms)),
  p99_ms: median(runs.map((r) => r.p99_ms)),
  errors: runs.reduce((sum, r) => sum + r.errors, 0),
});

const TICKS_PER_S = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * CPU time (ms) process `pid` has used so far in user and in kernel mode, from /proc (Linux: throws elsewhere or once it ended).
 * @param {number | undefined} pid a child's (undefined when it did not start: throws)
 */
export function cpuTimes(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { user: (Number(fields[11]) * 1000) / TICKS_PER_S, system: (Number(fields[12]) * 1000) / TICKS_PER_S };
}

/**
 * CPU time (user + system, ms) process `pid` has used so far.
 * @param {number | undefined} pid
 */
export function cpuMs(pid) {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

/** CPU time (ms) the whole machine has been busy so far, all cores added up (/proc/stat: everything but idle and iowait). */
export function machineBusyMs() {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = ticks;
  return ((user + nice + system + irq + softirq + steal) * 1000) / TICKS_PER_S;
}

/**
 * Writes `result` as bench/results/<name>-<day of `at`>.json (ISO `at`), or, when a run of that day
 * wrote that file already, as <name>-<day>-<HHMM>.json; returns the file's path.
 * @param {string} name
 * @param {string} at
 * @param {unknown} result
 */
export function writeResult(name, at, result) {
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  const daily = join(root, 'bench/results', `${name}-${at.slice(0, 10)}.json`);
  const file = existsSync(daily)
    ? join(root, 'bench/results', `${name}-${at.slice(0, 10)}-${at.slice(11, 16).replace(':', '')}.json`)
    : daily;
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  return file;
}

/**
 * `writeResult`, then the whole result printed as JSON.
 * @param {string} name
 * @param {string} at
 * @param {unknown} result
 */
export function writeAndPrintResult(name, at, result) {
  const file = writeResult(name, at, result);
  console.log(JSON.stringify(result, null, 2));
  return file;
}

/**
 * The environment of the processes a benchmark starts: on `database` (created), as in production
 * (NODE_ENV), with a fresh internal secret, listening on 127.0.0.1, logging at `logLevel`.
 * @param {{ url: string }} database
 * @param {string} logLevel
 * @returns {NodeJS.ProcessEnv}
 */
export function productionEnv(database, logLevel) {
  return {
    ...process.env,
    DATABASE_URL: database.url,
    NODE_ENV: 'production',
    ...internalKeys(),
    HOST: '127.0.0.1',
    LOG_LEVEL: logLevel,
  };
}

/**
 * Fresh internal keys (after the build): each calling app's `<APP>_INTERNAL_KEY`, INTERNAL_PUBLIC_KEYS
 * and LOG_PATH_SECRET (ADR 015). Sign as one with `InternalAuth.fromEnv('chat', env)`.
 */
export function internalKeys() {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  /** @type {typeof import('../libs/platform/src/index.js')} */
  const platform = createRequire(import.meta.url)(join(root, 'dist/libs/platform/src/index.js'));
  /** @type {Record<string, string>} */
  const env = { LOG_PATH_SECRET: randomBytes(32).toString('hex') };
  const listed = [];
  for (const caller of platform.INTERNAL_CALLERS) {
    const { seed, publicKey } = platform.generateInternalKey();
    env[platform.internalKeySetting(caller)] = seed;
    listed.push(`${caller}:${publicKey}`);
  }
  env[platform.PUBLIC_KEYS_SETTING] = listed.join(' ');
  return env;
}

/**
 * The machine a result was measured on, with `extra` (what a bench adds: the load average as it reads it, a note).
 * @template {object} [T={}]
 * @param {T} [extra]
 * @returns {{ cpus: number, cpu: string | undefined, memory_gib: number, node: string } & T}
 */
export function machine(extra) {
  return {
    cpus: cpus().length,
    cpu: cpus()[0]?.model,
    memory_gib: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    .../** @type {T} */ (extra),
  };
}

/**
 * A span as the sink kept it (`traceSink({ keepSpans: true })`): OpenTelemetry's SpanKind (2 server,
 * 4 producer, 5 consumer), times in ms since the epoch.
 * @typedef {{ service: string, traceId: string, name: string, kind: number, startMs: number, endMs: number }} SinkSpan
 */

/**
 * Tracing for a run, as production turns it on (k8s/components/tracing): with BENCH_TRACE_RATIO set
 * (0.1: one trace in ten), the apps export their spans over OTLP/HTTP to a sink in this process that
 * reads and acknowledges every batch, as a collector would. Without it, tracing stays off and this
 * returns no setting. `tracing` goes into the result, so that a run with tracing is never read as one
 * without. With `keepSpans`, the apps export JSON and the sink keeps every span (`spans()`).
 * @param {{ keepSpans?: boolean }} [options]
 */
export async function traceSink(options = {}) {
  const ratio = process.env.BENCH_TRACE_RATIO;
  /** @type {SinkSpan[]} */
  const kept = [];
  if (ratio === undefined || ratio === '') return { env: {}, tracing: null, spans: () => kept, close: async () => undefined };
  const { createServer } = await import('node:http');
  let exports = 0;
  const server = createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (chunk) => options.keepSpans && chunks.push(chunk));
    req.on('end', () => {
      exports += 1;
      if (options.keepSpans) keep(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res
        .writeHead(200, { 'content-type': options.keepSpans ? 'application/json' : 'application/x-protobuf' })
        .end(options.keepSpans ? '{}' : '');
    });
  });
  /** @param {any} exported an OTLP/JSON export request */
  const keep = (exported) => {
    for (const resource of exported.resourceSpans ?? []) {
      const service =
        (resource.resource?.attributes ?? []).find((/** @type {any} */ a) => a.key === 'service.name')?.value?.stringValue ?? '';
      for (const scope of resource.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          kept.push({
            service,
            traceId: span.traceId,
            name: span.name,
            kind: span.kind,
            startMs: Number(BigInt(span.startTimeUnixNano) / 1000n) / 1000,
            endMs: Number(BigInt(span.endTimeUnixNano) / 1000n) / 1000,
          });
    }
  };
  await new Promise((listening) => server.listen(0, '127.0.0.1', () => listening(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${address.port}`,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: ratio,
      ...(options.keepSpans ? { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '500' } : {}),
    },
    tracing: { ratio: Number(ratio), exports: () => exports },
    spans: () => kept,
    close: () => new Promise((closed) => server.close(() => closed(undefined))),
  };
}

/** @typedef {{ eventId: string, body: string, receivedAt: number }} Received a delivery, as bench/receiver-process.mjs tells it */

/**
 * The receiver process (bench/receiver-process.mjs), asked over IPC what it has received.
 * @param {{ key: string, cert: string }} ca
 */
export async function startReceiverProcess(ca) {
  const child = fork(join(root, 'bench/receiver-process.mjs'), {
    env: { ...process.env, RECEIVER_CA: JSON.stringify({ key: ca.key, cert: ca.cert }) },
  });
  const [{ port }] = await once(child, 'message');
  /** @type {Map<number, (value: unknown) => void>} */
  const pending = new Map();
  let nextAsk = 0;
  child.on('message', (message) => {
    const { id, value } = /** @type {{ id: number, value: unknown }} */ (message);
    pending.get(id)?.(value);
  });
  /**
   * @param {'count' | 'received'} op
   * @param {string} path
   */
  const ask = (op, path) =>
    new Promise((resolve) => {
      const id = nextAsk++;
      pending.set(id, (value) => {
        pending.delete(id);
        resolve(value);
      });
      child.send({ id, op, path });
    });
  return {
    /** @param {string} path */
    url: (path) => `https://127.0.0.1:${port}${path}`,
    /** @param {string} path */
    received: (path) => /** @type {Promise<Received[]>} */ (ask('received', path)),
    /**
     * @param {string} path
     * @param {number} count
     * @param {number} timeoutMs
     */
    async waitFor(path, count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (let got = 0; (got = /** @type {number} */ (await ask('count', path))) < count; await sleep(100)) {
        if (Date.now() > deadline) throw new Error(`${path} received ${got} of ${count} within ${timeoutMs} ms`);
      }
    },
    close: async () => {
      child.disconnect();
      await once(child, 'exit');
    },
  };
}

/**
 * Calls `start(n)` for n = 0 … total-1 at `rate` per second; resolves when every call has.
 * @param {number} total
 * @param {number} rate
 * @param {(n: number) => Promise<unknown>} start
 */
export async function atSteadyRate(total, rate, start) {
  const begun = performance.now();
  const calls = [];
  for (let n = 0; n < total; n++) {
    const wait = begun + (n * 1000) / rate - performance.now();
    if (wait > 0) await sleep(wait);
    calls.push(start(n));
  }
  await Promise.all(calls);
}
