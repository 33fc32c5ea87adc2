// npm run bench:gateway — throughput and latency of GET /api/v1/whoami through the gateway (key
// lookup, plan check, request id, metrics, one JSON access-log line per request at LOG_LEVEL=info)
// beside a bare Fastify handler returning the same body (bench/bare-whoami.mjs: no auth, no logs,
// no metrics), measured in the same run on the same machine with wrk when it is installed (a small
// C program; autocannon, the fallback, runs in Node.js and takes a large share of a 2-core machine
// itself). BENCH_LOADER=wrk|autocannon chooses.
//
// Like with like: each server is a process of its own started with the same environment
// (NODE_ENV=production), and both are driven by the same autocannon settings. The machine is
// shared (2 cores, other work running), so one long run of each, one after the other, would
// compare two different loads: instead the two are measured in alternating rounds (ABBA order,
// BENCH_ROUNDS rounds of BENCH_DURATION_S seconds each), and each round's ratio compares two
// measurements taken seconds apart. A process also keeps the speed it settles into at start for its
// lifetime (two identical gateway processes side by side differ by up to 15%), so one pair of
// processes would measure their luck: the rounds are repeated over BENCH_FORKS fresh pairs, which
// take turns starting first, and the figure reported is the median of all the rounds' ratios.
// The bare handler stays bare: the target compares the gateway, access log included, with the
// least a Fastify process can do.
//
// On a machine of two or more CPUs with `taskset` (util-linux), the server runs on CPU 0 and the
// load generator on CPU 1: left to the scheduler (which likely put a server and wrk, which wake
// each other over the loopback, on one CPU at times), one process answered 10,000 or 20,000 calls
// a second from one round to the next. BENCH_PIN=0 leaves the placement to the scheduler.
//
// Needs `npm run build` and PostgreSQL + Redis on 127.0.0.1. Writes bench/results/gateway-*.json.
// BENCH_FORKS (4; even, so that each server starts first as often), BENCH_ROUNDS (4 per pair),
// BENCH_DURATION_S (4), BENCH_CONNECTIONS (50), BENCH_THREADS (wrk's, 1) and BENCH_LOG_LEVEL (info)
// tune it.
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { openSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import {
  benchDatabase,
  cpuTimes,
  machine,
  measured,
  median,
  root,
  round2,
  roundSettings,
  stopProcesses,
  summary,
  traceSink,
  waitReady,
  writeResult,
} from './support.mjs';

const FORKS = Number(process.env.BENCH_FORKS ?? 4);
const { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS } = roundSettings({ rounds: 4, duration: 4, connections: 50 });
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';
const hasWrk = spawnSync('wrk', ['--version']).error === undefined;
const LOADER = process.env.BENCH_LOADER ?? (hasWrk ? 'wrk' : 'autocannon');
const PIN = process.env.BENCH_PIN !== '0' && availableParallelism() >= 2 && spawnSync('taskset', ['-V']).error === undefined;
/**
 * The command that runs `command` on CPU `cpu` when the run pins its processes, else `command` as it is.
 * @param {number} cpu
 * @param {string[]} command
 * @returns {[string, string[]]}
 */
const onCpu = (cpu, [file, ...args]) => (PIN ? ['taskset', ['-c', String(cpu), file, ...args]] : [file, args]);
// autocannon generates the load from this process.
if (PIN && LOADER === 'autocannon') spawnSync('taskset', ['-p', '-c', '1', String(process.pid)]);
if (!['wrk', 'autocannon'].includes(LOADER) || (LOADER === 'wrk' && !hasWrk))
  throw new Error(`BENCH_LOADER=${LOADER}: use wrk (installed: ${hasWrk}) or autocannon`);

/** @typedef {import('./support.mjs').Figures} Figures */
/** @typedef {Figures & { user_us_per_request: number, system_us_per_request: number }} CpuFigures */
/** @typedef {'gateway' | 'bare'} Server */

/**
 * wrk's `--latency` report as `measured` gives autocannon's: requests/s, p50 and p99 in ms, errors.
 * @param {string} output
 * @returns {Figures}
 */
function fromWrk(output) {
  /** @param {string | undefined} text */
  const ms = (text) => {
    const [, value, unit] = /^([\d.]+)(us|ms|s|m)$/.exec(String(text)) ?? [];
    if (value === undefined) throw new Error(`wrk: cannot read the latency ${text}`);
    return Number(value) * /** @type {Record<string, number>} */ ({ us: 0.001, ms: 1, s: 1000, m: 60_000 })[unit];
  };
  /** @param {RegExp} pattern */
  const field = (pattern) => pattern.exec(output)?.[1];
  const socketErrors =
    /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
      .exec(output)
      ?.slice(1)
      .reduce((sum, n) => sum + Number(n), 0) ?? 0;
  const rps = field(/Requests\/sec:\s+([\d.]+)/);
  if (rps === undefined) throw new Error(`wrk: no Requests/sec in its output:\n${output}`);
  return {
    requests_per_s: Math.round(Number(rps)),
    p50_ms: round2(ms(field(/^\s+50%\s+(\S+)/m))),
    p99_ms: round2(ms(field(/^\s+99%\s+(\S+)/m))),
    errors: socketErrors + Number(field(/Non-2xx or 3xx responses: (\d+)/) ?? 0),
  };
}

/** `summary` with the median CPU per request, user and kernel time (µs; /proc's clock ticks, so whole runs only). */
/** @param {CpuFigures[]} runs */
const withCpu = (runs) => ({
  ...summary(runs),
  user_us_per_request: median(runs.map((r) => r.user_us_per_request)),
  system_us_per_request: median(runs.map((r) => r.system_us_per_request)),
});

/**
 * One measurement of `durationS` seconds against `url`, with the chosen load generator.
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {number} durationS
 * @returns {Promise<Figures>}
 */
function drive(url, headers, durationS) {
  if (LOADER === 'autocannon') return autocannon({ url, headers, connections: CONNECTIONS, duration: durationS }).then(measured);
  const args = [
    '--latency',
    '-t',
    String(THREADS),
    '-c',
    String(CONNECTIONS),
    '-d',
    `${durationS}s`,
    ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(...onCpu(1, ['wrk', ...args]), { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(fromWrk(output)) : reject(new Error(`wrk exited with ${code}:\n${output}`))));
  });
}
const { database, env, apiKey, account } = await benchDatabase(LOG_LEVEL);
// BENCH_TRACE_RATIO=0.1: the gateway traces as in production (k8s/components/tracing), to a sink here.
const sink = await traceSink();
const body = {
  account,
  key: { id: '00000000-0000-0000-0000-000000000000', prefix: apiKey.slice(0, 13), created_at: '2026-11-21T10:04:05.123456+00:00' },
  app_url: 'http://localhost:3000',
};

// The access log goes to /dev/null: the gateway formats and writes every line, nothing reads them.
/** @type {import('node:child_process').StdioOptions} */
const quiet = ['ignore', openSync('/dev/null', 'w'), 'inherit'];
/** @type {Record<Server, { script: string, port: number, headers: Record<string, string>, env?: NodeJS.ProcessEnv }>} */
const servers = {
  gateway: {
    script: join(root, 'dist/apps/gateway/src/main.js'),
    port: 3900,
    headers: { authorization: `Bearer ${apiKey}` },
    env: sink.env,
  },
  bare: { script: join(root, 'bench/bare-whoami.mjs'), port: 3901, headers: {}, env: { BODY: JSON.stringify(body) } },
};
/** @param {Server} name */
const url = (name) => `http://127.0.0.1:${servers[name].port}`;
/** @type {import('node:child_process').ChildProcess[]} */
let children = [];

/** Stops this fork's servers and waits until they have exited. */
async function stopServers() {
  await stopProcesses(children);
  children = [];
}

/**
 * One fresh pair of processes: warm-up, then ROUNDS rounds in ABBA order.
 * @param {number} index
 * @param {Record<Server, CpuFigures[]>} runs
 * @param {number[]} ratios
 */
async function fork(index, runs, ratios) {
  /** @type {Server[]} */
  const order = index % 2 === 0 ? ['gateway', 'bare'] : ['bare', 'gateway'];
  for (const name of order) {
    const { script, port, env: own } = servers[name];
    children.push(spawn(...onCpu(0, [process.execPath, script]), { env: { ...env, ...own, PORT: String(port) }, stdio: quiet }));
    await waitReady(url(name));
  }
  const pids = Object.fromEntries(order.map((name, i) => [name, children[i].pid]));
  /**
   * One measurement, with the CPU the server used per request, split into user and kernel time.
   * @param {Server} name
   * @param {number} duration
   * @returns {Promise<CpuFigures>}
   */
  const load = async (name, duration) => {
    const before = cpuTimes(pids[name]);
    const run = await drive(`${url(name)}/api/v1/whoami`, servers[name].headers, duration);
    const after = cpuTimes(pids[name]);
    /** @param {number} ms */
    const perRequest = (ms) => round2((ms * 1000) / (run.requests_per_s * duration));
    return {
      ...run,
      user_us_per_request: perRequest(after.user - before.user),
      system_us_per_request: perRequest(after.system - before.system),
    };
  };
  for (const name of order) await load(name, 2); // warm-up (JIT, key cache)
  for (let i = 0; i < ROUNDS; i += 1) {
    const round = /** @type {Record<Server, CpuFigures>} */ ({}); // both filled below
    for (const name of i % 2 === 0 ? order : [...order].reverse()) round[name] = await load(name, DURATION);
    runs.bare.push(round.bare);
    runs.gateway.push(round.gateway);
    ratios.push(round2(round.gateway.requests_per_s / round.bare.requests_per_s));
    console.log(
      `fork ${index + 1}/${FORKS} round ${i + 1}/${ROUNDS}: bare ${round.bare.requests_per_s} rps, gateway ${round.gateway.requests_per_s} rps, ratio ${ratios.at(-1)}`,
    );
  }
  await stopServers();
}

try {
  /** @type {Record<Server, CpuFigures[]>} */
  const runs = { bare: [], gateway: [] };
  /** @type {number[]} */
  const ratios = [];
  /** @type {number[]} */
  const forkRatios = [];
  for (let f = 0; f < FORKS; f += 1) {
    const before = ratios.length;
    await fork(f, runs, ratios);
    forkRatios.push(median(ratios.slice(before)));
  }
  const result = {
    benchmark: 'GET /api/v1/whoami',
    at: new Date().toISOString(),
    machine: machine({ load_average_1m: round2(loadavg()[0]) }),
    settings: {
      loader: LOADER,
      pinned: PIN ? 'server on CPU 0, load generator on CPU 1' : false,
      ...(LOADER === 'wrk' ? { wrk_threads: THREADS } : {}),
      forks: FORKS,
      rounds_per_fork: ROUNDS,
      duration_s: DURATION,
      connections: CONNECTIONS,
      node_env: 'production',
      gateway_log_level: LOG_LEVEL,
      tracing: sink.tracing && { sampled_ratio: sink.tracing.ratio, exports_received: sink.tracing.exports() },
    },
    bare_fastify: withCpu(runs.bare),
    gateway: withCpu(runs.gateway),
    round_ratios: ratios,
    fork_ratios: forkRatios,
    throughput_ratio: median(ratios),
    target: 'gateway keeps at least 0.5 of the bare handler throughput (median of the per-round ratios over all forks)',
    rounds: runs,
  };
  const file = writeResult('gateway', result.at, result);
  console.table({ 'bare Fastify': result.bare_fastify, gateway: result.gateway });
  console.log(
    `throughput ratio gateway/bare: ${result.throughput_ratio} (median of ${ratios.length} rounds over ${FORKS} process pairs, whose medians were ${forkRatios.join(', ')}; target ≥ 0.5) — written to ${file}`,
  );
  if (result.gateway.errors > 0 || result.bare_fastify.errors > 0) process.exitCode = 1;
} finally {
  await stopServers();
  await Promise.all([database.drop(), sink.close()]);
}
