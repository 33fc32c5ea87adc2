// npm run bench:gateway — throughput and latency of GET /api/v1/whoami through the gateway (key
// lookup, plan check, request id, metrics, one JSON log line per request) beside a bare Fastify
// handler returning the same body, measured in the same run on the same machine with autocannon.
// Needs `npm run build` and PostgreSQL + Redis on 127.0.0.1. Writes bench/results/gateway-*.json.
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DURATION = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const server = process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = `svc_bench_${randomBytes(4).toString('hex')}`;
const dbUrl = Object.assign(new URL(server), { pathname: `/${dbName}` }).toString();

async function onServer(sql) {
  const client = new pg.Client({ connectionString: server });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

async function waitReady(url) {
  for (let i = 0; i < 200; i += 1) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // starting
    }
    await sleep(100);
  }
  throw new Error(`${url} not ready`);
}

function load(url, headers) {
  return autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION, warmup: { connections: CONNECTIONS, duration: 2 } });
}

const summary = (r) => ({ requests_per_s: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, errors: r.errors + r.non2xx });

await onServer(`CREATE DATABASE ${dbName}`);
const env = { ...process.env, DATABASE_URL: dbUrl, NODE_ENV: 'production', INTERNAL_AUTH_SECRET: randomBytes(32).toString('hex'), PORT: '3900', HOST: '127.0.0.1', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info' };
const created = spawnSync(process.execPath, [join(root, 'dist/apps/admin/src/main.js'), 'account', 'create', '--name', 'Bench', '--plan', 'scale'], { env, encoding: 'utf8' });
if (created.status !== 0) throw new Error(created.stderr);
const { api_key: apiKey, account } = JSON.parse(created.stdout);

const gateway = spawn(process.execPath, [join(root, 'dist/apps/gateway/src/main.js')], { env, stdio: ['ignore', openSync('/dev/null', 'w'), 'inherit'] });
const body = { account, key: { id: '00000000-0000-0000-0000-000000000000', prefix: apiKey.slice(0, 13), created_at: '2026-11-21T10:04:05.123456+00:00' }, app_url: 'http://localhost:3000' };
// Both servers are processes of their own, each beside this load generator: the same conditions.
const bare = spawn(process.execPath, [join(root, 'bench/bare-whoami.mjs')], { env: { ...process.env, PORT: '3901', BODY: JSON.stringify(body) }, stdio: 'inherit' });

try {
  await Promise.all([waitReady('http://127.0.0.1:3900'), waitReady('http://127.0.0.1:3901')]);
  const bareResult = summary(await load('http://127.0.0.1:3901/api/v1/whoami', {}));
  const gatewayResult = summary(await load('http://127.0.0.1:3900/api/v1/whoami', { authorization: `Bearer ${apiKey}` }));
  const result = {
    benchmark: 'GET /api/v1/whoami',
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
    settings: { duration_s: DURATION, connections: CONNECTIONS },
    bare_fastify: bareResult,
    gateway: gatewayResult,
    throughput_ratio: Math.round((gatewayResult.requests_per_s / bareResult.requests_per_s) * 100) / 100,
    target: 'gateway keeps at least 0.5 of the bare handler throughput',
  };
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  const file = join(root, 'bench/results', `gateway-${result.at.slice(0, 10)}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.table({ 'bare Fastify': bareResult, gateway: gatewayResult });
  console.log(`throughput ratio gateway/bare: ${result.throughput_ratio} (target ≥ 0.5) — written to ${file}`);
  if (gatewayResult.errors > 0) process.exitCode = 1;
} finally {
  for (const child of [gateway, bare]) child.kill('SIGTERM');
  await Promise.all([gateway, bare].map((child) => new Promise((r) => child.on('exit', r))));
  await onServer(`DROP DATABASE ${dbName} WITH (FORCE)`);
}
