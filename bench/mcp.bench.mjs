// npm run bench:mcp — latency of one read through the MCP server beside the same read through the
// REST API, in one run on one machine: the tool `list_knowledge_pieces {external_ref}` (POST /mcp,
// a JSON-RPC tools/call answered as JSON: gateway checks → mcp-server → knowledge-api) against
// `GET /api/v1/knowledge?external_ref=` (gateway checks → knowledge-api). Both answer the same
// body. Each MCP request stands alone (stateless: no session, as an agent's SDK sends a call).
//
// The machine is shared, so the two are measured in alternating rounds (ABBA order, BENCH_ROUNDS
// rounds of BENCH_DURATION_S seconds each, BENCH_CONNECTIONS connections each sending its next
// request when the last is answered) and the figure reported is the median of the per-round p50
// ratios. Target: MCP p50 ≤ 2 × REST p50. Each request is timed with performance.now() (autocannon
// reports whole milliseconds: 1 ms against 2 or 3 says nothing about a ratio near 2); the
// throughput ratio is reported beside it, and each app's CPU time per request (user + system,
// from /proc), which shows where a call's cost lies and moves less with a neighbour's load than
// latency does. The load average before and after is recorded.
//
// Needs `npm run build` and PostgreSQL + Redis on 127.0.0.1. Writes bench/results/mcp-*.json.
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import {
  benchDatabase,
  cpuMs,
  machine,
  median,
  percentile,
  round2,
  round3,
  roundSettings,
  startApp,
  stopProcesses,
  summary,
  writeResult,
} from './support.mjs';

const { rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS } = roundSettings({ rounds: 6, duration: 4, connections: 1 });
const PORTS = { gateway: 3920, knowledge: 3921, mcp: 3922 };
const PROTOCOL_VERSION = '2025-11-25';

/** @typedef {'rest' | 'mcp'} Kind */
/** @typedef {import('./support.mjs').Figures & { cpu_us_per_request: Record<string, number> }} AppsFigures */
/**
 * @typedef {object} Target One request, sent again and again.
 * @property {string} origin
 * @property {string} path
 * @property {import('undici').Dispatcher.HttpMethod} method
 * @property {Record<string, string>} headers
 * @property {string} [body]
 */

/** CPU time (ms) each app's process has used so far (empty where /proc cannot tell). */
function appsCpuMs() {
  try {
    return Object.fromEntries(Object.entries(pids).map(([app, pid]) => [app, cpuMs(pid)]));
  } catch {
    return {};
  }
}

/**
 * `target` for `seconds` over CONNECTIONS keep-alive connections, each sending its next request as
 * soon as the last is answered: requests per second, and p50/p99 of each request's time (first
 * byte sent to last byte read) in ms to the µs. A status other than 200 counts as an error.
 * @param {Target} target
 * @param {number} seconds
 * @returns {Promise<AppsFigures>}
 */
async function load(target, seconds) {
  const pool = new Pool(target.origin, { connections: CONNECTIONS, pipelining: 1 });
  /** @type {number[]} */
  const latencies = [];
  let errors = 0;
  const cpuBefore = appsCpuMs();
  const started = performance.now();
  const end = started + seconds * 1000;
  const connection = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      try {
        const response = await pool.request({ path: target.path, method: target.method, headers: target.headers, body: target.body });
        await response.body.arrayBuffer();
        if (response.statusCode !== 200) errors += 1;
      } catch {
        errors += 1;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, connection));
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = appsCpuMs();
  await pool.close();
  latencies.sort((a, b) => a - b);
  const cpuUsPerRequest = Object.fromEntries(
    Object.keys(cpuAfter).map((app) => [app, Math.round(((cpuAfter[app] - cpuBefore[app]) * 1000) / latencies.length)]),
  );
  return {
    requests_per_s: Math.round(latencies.length / elapsed),
    p50_ms: round3(percentile(latencies, 50)),
    p99_ms: round3(percentile(latencies, 99)),
    errors,
    cpu_us_per_request: cpuUsPerRequest,
  };
}
/** @param {AppsFigures[]} runs */
const withCpu = (runs) => ({
  ...summary(runs),
  cpu_us_per_request: Object.fromEntries(
    Object.keys(runs[0].cpu_us_per_request).map((app) => [app, median(runs.map((r) => r.cpu_us_per_request[app]))]),
  ),
});

const { database, env, apiKey, account } = await benchDatabase('warn');
/** @param {number} port */
const local = (port) => `http://127.0.0.1:${port}`;
/** @type {import('node:child_process').ChildProcess[]} */
const children = [];
/** @type {Record<string, number | undefined>} */
const pids = {};
/**
 * @param {string} app
 * @param {number} port
 * @param {NodeJS.ProcessEnv} [extra]
 */
const start = async (app, port, extra = {}) => {
  pids[app] = (await startApp(children, app, { port, env: { ...env, ...extra } })).pid;
};

try {
  await start('knowledge-api', PORTS.knowledge);
  await start('mcp-server', PORTS.mcp, { GATEWAY_URL: local(PORTS.gateway), KNOWLEDGE_API_URL: local(PORTS.knowledge) });
  await start('gateway', PORTS.gateway, {
    KNOWLEDGE_API_URL: local(PORTS.knowledge),
    MCP_SERVER_URL: local(PORTS.mcp),
    WRITE_LIMIT_EXEMPT_ACCOUNTS: account.id,
  });

  const authorization = `Bearer ${apiKey}`;
  const piece = {
    heading: 'Shipping',
    text: 'Orders ship within two working days from our warehouse in Leeds.',
    url: 'https://shop.example/shipping',
  };
  const put = await fetch(`${local(PORTS.gateway)}/api/v1/knowledge/faq-shipping`, {
    method: 'PUT',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify(piece),
  });
  if (put.status !== 201) throw new Error(`seeding: ${put.status}`);

  const origin = local(PORTS.gateway);
  /** @type {Target} */
  const rest = { origin, path: '/api/v1/knowledge?external_ref=faq-shipping', method: 'GET', headers: { authorization } };
  /** @type {Target} */
  const mcp = {
    origin,
    path: '/mcp',
    method: 'POST',
    headers: {
      authorization,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': PROTOCOL_VERSION,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'list_knowledge_pieces', arguments: { external_ref: 'faq-shipping' } },
    }),
  };
  // The two answer the same body: the benchmark compares like with like.
  const restBody = await (await fetch(origin + rest.path, rest)).json();
  const mcpAnswer = /** @type {{ result?: { structuredContent?: unknown, isError?: boolean } }} */ (
    await (await fetch(origin + mcp.path, mcp)).json()
  );
  if (JSON.stringify(mcpAnswer.result?.structuredContent) !== JSON.stringify(restBody) || mcpAnswer.result?.isError) {
    throw new Error(`the tool does not answer the REST body: ${JSON.stringify(mcpAnswer)}`);
  }

  await load(rest, 2); // warm-up (JIT, key cache, the tool catalog)
  await load(mcp, 2);
  /** @type {Record<Kind, AppsFigures[]>} */
  const runs = { rest: [], mcp: [] };
  /** @type {number[]} */
  const ratios = [];
  /** @type {number[]} */
  const throughputRatios = [];
  const loadBefore = round2(loadavg()[0]);
  for (let i = 0; i < ROUNDS; i += 1) {
    const round = /** @type {Record<Kind, AppsFigures>} */ ({}); // both filled below
    for (const name of /** @type {Kind[]} */ (i % 2 === 0 ? ['rest', 'mcp'] : ['mcp', 'rest']))
      round[name] = await load(name === 'rest' ? rest : mcp, DURATION);
    runs.rest.push(round.rest);
    runs.mcp.push(round.mcp);
    ratios.push(round2(round.mcp.p50_ms / round.rest.p50_ms));
    throughputRatios.push(round2(round.rest.requests_per_s / round.mcp.requests_per_s));
    console.log(
      `round ${i + 1}/${ROUNDS}: REST p50 ${round.rest.p50_ms} ms (${round.rest.requests_per_s}/s), MCP p50 ${round.mcp.p50_ms} ms (${round.mcp.requests_per_s}/s), p50 ratio ${ratios.at(-1)}, throughput ratio ${throughputRatios.at(-1)}`,
    );
  }
  const result = {
    benchmark: 'MCP tools/call list_knowledge_pieces vs GET /api/v1/knowledge?external_ref= (through the gateway)',
    at: new Date().toISOString(),
    machine: machine({ load_average_1m_before: loadBefore, load_average_1m_after: round2(loadavg()[0]) }),
    settings: {
      rounds: ROUNDS,
      duration_s: DURATION,
      connections: CONNECTIONS,
      node_env: 'production',
      log_level: 'warn',
      protocol_version: PROTOCOL_VERSION,
      timer: 'performance.now() per request (undici)',
    },
    rest: withCpu(runs.rest),
    mcp: withCpu(runs.mcp),
    round_p50_ratios: ratios,
    p50_ratio: median(ratios),
    round_throughput_ratios: throughputRatios,
    throughput_ratio: median(throughputRatios),
    target: 'MCP p50 at most 2 × REST p50 (median of the per-round ratios)',
    met: median(ratios) <= 2,
    rounds: runs,
  };
  const file = writeResult('mcp', result.at, result);
  /** @param {AppsFigures} figures */
  const row = ({ cpu_us_per_request: cpu, ...figures }) => ({
    ...figures,
    ...Object.fromEntries(Object.entries(cpu).map(([app, us]) => [`${app} CPU µs`, us])),
  });
  console.table({ REST: row(result.rest), MCP: row(result.mcp) });
  console.log(
    `p50 ratio MCP/REST: ${result.p50_ratio} (median of ${ratios.length} rounds; target ≤ 2), throughput ratio REST/MCP ${result.throughput_ratio}, load average ${loadBefore} → ${result.machine.load_average_1m_after} — written to ${file}`,
  );
  if (result.rest.errors > 0 || result.mcp.errors > 0) process.exitCode = 1;
} finally {
  await stopProcesses(children);
  await database.drop();
}
