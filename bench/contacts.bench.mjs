// npm run bench:contacts — PUT /api/v1/contacts/{ref} (a new customer with one consent, a new ref
// every request) and GET /api/v1/contacts/{ref} through the gateway and contacts-api, beside a bare
// Fastify + pg handler doing the same SQL (lock or insert the customer, insert the consent, read
// the consents back, in one transaction) in the same run, measured with autocannon.
// The bench account's writes are exempt from the write limit (WRITE_LIMIT_EXEMPT_ACCOUNTS).
// Needs `npm run build`, PostgreSQL and Redis on 127.0.0.1. Writes bench/results/contacts-*.json.
// `node bench/contacts.bench.mjs --bare` is the baseline server itself (PORT, DATABASE_URL).
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);

const CUSTOMER_COLUMNS = 'svc_id, ref, name, email, email_confirmed, phone, phone_confirmed, lang, created_at, updated_at';
const CONSENT_COLUMNS = 'purpose, granted, text, lang, given_at, source, withdrawn_at, withdrawn_by, origin';

/** The baseline: contacts-api's SQL for the same two calls, without Nest, validation, auth or logs. */
async function bareServer() {
  pg.types.setTypeParser(1184, (text) => text); // timestamptz as text, as contacts-api reads it
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: '-c timezone=UTC' });
  const accountId = randomUUID();
  const consentsOf = async (db, svcId) =>
    (await db.query(`SELECT ${CONSENT_COLUMNS} FROM contacts.consents WHERE account_id = $1 AND customer_svc_id = $2 ORDER BY given_at, id`, [accountId, svcId])).rows;
  const app = Fastify();
  app.put('/api/v1/contacts/:ref', async (request, reply) => {
    const { ref } = request.params;
    const { name = '', email = null, consents = [] } = request.body;
    const db = await pool.connect();
    try {
      await db.query('BEGIN');
      let [customer] = (await db.query(`SELECT ${CUSTOMER_COLUMNS} FROM contacts.customers WHERE account_id = $1 AND ref = $2 FOR UPDATE`, [accountId, ref])).rows;
      const created = !customer;
      if (created) {
        [customer] = (
          await db.query(
            `INSERT INTO contacts.customers (account_id, ref, name, email) VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, ref) DO NOTHING RETURNING ${CUSTOMER_COLUMNS}`,
            [accountId, ref, name, email],
          )
        ).rows;
      }
      const c = consents[0];
      await db.query(
        `INSERT INTO contacts.consents (account_id, customer_svc_id, purpose, granted, text, lang, given_at, source, origin)
         SELECT $1, $2, * FROM unnest($3::text[], $4::boolean[], $5::text[], $6::text[], $7::timestamptz[], $8::text[], $9::text[])`,
        [accountId, customer.svc_id, [c.purpose], [true], [c.text], [c.lang], [c.given_at], [c.source], ['api']],
      );
      const rows = await consentsOf(db, customer.svc_id);
      await db.query('COMMIT');
      reply.code(created ? 201 : 200);
      return { ...customer, svc_id: Number(customer.svc_id), consents: rows.map((row) => ({ ...row, active: row.granted && row.withdrawn_at === null })) };
    } catch (err) {
      await db.query('ROLLBACK');
      throw err;
    } finally {
      db.release();
    }
  });
  app.get('/api/v1/contacts/:ref', async (request, reply) => {
    const [customer] = (await pool.query(`SELECT ${CUSTOMER_COLUMNS} FROM contacts.customers WHERE account_id = $1 AND ref = $2`, [accountId, request.params.ref])).rows;
    if (!customer) return reply.code(404).send({ error: { code: 'not_found', message: 'No such customer.' } });
    const rows = await consentsOf(pool, customer.svc_id);
    return { ...customer, svc_id: Number(customer.svc_id), consents: rows.map((row) => ({ ...row, active: row.granted && row.withdrawn_at === null })) };
  });
  app.get('/readyz', async () => ({ status: 'ready' }));
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  process.on('SIGTERM', () => app.close().then(() => pool.end()).then(() => process.exit(0)));
}

if (process.argv.includes('--bare')) {
  await bareServer();
} else {
  await bench();
}

async function bench() {
  const DURATION = Number(process.env.BENCH_DURATION_S ?? 10);
  const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const server = process.env.TEST_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = `svc_bench_${randomBytes(4).toString('hex')}`;
  const dbUrl = Object.assign(new URL(server), { pathname: `/${dbName}` }).toString();
  const ports = { gateway: 3920, contacts: 3921, bare: 3922 };

  const onServer = async (sql) => {
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  const waitReady = async (url) => {
    for (let i = 0; i < 300; i += 1) {
      try {
        if ((await fetch(`${url}/readyz`)).ok) return;
      } catch {
        // starting
      }
      await sleep(100);
    }
    throw new Error(`${url} not ready`);
  };

  const consent = {
    purpose: 'future_email',
    text: 'Yes, send me offers and news by email.',
    lang: 'en',
    given_at: '2026-11-21T11:04:05.123456+01:00',
    source: 'website_form',
  };
  const putBody = JSON.stringify({ name: 'Ada Lovelace', email: 'ada@example.com', consents: [consent] });
  const prefix = randomBytes(4).toString('hex');
  /** Refs each server answered 201 for: what its GET run reads. */
  const createdRefs = { bare: [], gateway: [] };
  const load = (base, headers, request) =>
    autocannon({ url: base, connections: CONNECTIONS, duration: DURATION, warmup: { connections: CONNECTIONS, duration: 2 }, headers, requests: [request] });

  /** PUTs, each with a ref never used before (autocannon keeps one request in flight per connection). */
  const puts = (base, headers, label) => {
    let next = 0;
    return load(base, { ...headers, 'content-type': 'application/json' }, {
      method: 'PUT',
      body: putBody,
      setupRequest: (request, context) => {
        context.ref = `${prefix}-${next++}`;
        return { ...request, path: `/api/v1/contacts/${context.ref}` };
      },
      onResponse: (status, _body, context) => {
        if (status === 201) createdRefs[label].push(context.ref);
      },
    });
  };
  /** GETs cycling over the customers the PUT run created on that server. */
  const gets = (base, headers, label) => {
    const refs = createdRefs[label];
    let next = 0;
    return load(base, headers, { method: 'GET', setupRequest: (request) => ({ ...request, path: `/api/v1/contacts/${refs[next++ % refs.length]}` }) });
  };
  const loadAverage = () => Math.round(loadavg()[0] * 100) / 100;
  /** The figures of one run, with the machine's 1-minute load average when it started. */
  const measure = async (run) => {
    const load_1m = loadAverage();
    const r = await run;
    return { requests_per_s: Math.round(r.requests.average), p50_ms: r.latency.p50, p99_ms: r.latency.p99, errors: r.errors + r.non2xx + r.timeouts, load_1m };
  };
  const ratio = (a, b) => Math.round((a.requests_per_s / b.requests_per_s) * 100) / 100;

  await onServer(`CREATE DATABASE ${dbName}`);
  const env = {
    ...process.env,
    DATABASE_URL: dbUrl,
    NODE_ENV: 'production',
    INTERNAL_AUTH_SECRET: randomBytes(32).toString('hex'),
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  };
  const created = spawnSync(process.execPath, [join(root, 'dist/apps/admin/src/main.js'), 'account', 'create', '--name', 'Bench', '--plan', 'scale'], { env, encoding: 'utf8' });
  if (created.status !== 0) throw new Error(created.stderr);
  const { api_key: apiKey, account } = JSON.parse(created.stdout);

  const quiet = () => ['ignore', openSync('/dev/null', 'w'), 'inherit'];
  const children = [];
  try {
    // contacts-api first: it migrates schema `contacts`, which the bare handler writes too.
    children.push(spawn(process.execPath, [join(root, 'dist/apps/contacts-api/src/main.js')], { env: { ...env, PORT: String(ports.contacts) }, stdio: quiet() }));
    await waitReady(`http://127.0.0.1:${ports.contacts}`);
    children.push(
      spawn(process.execPath, [join(root, 'dist/apps/gateway/src/main.js')], {
        env: { ...env, PORT: String(ports.gateway), CONTACTS_API_URL: `http://127.0.0.1:${ports.contacts}`, WRITE_LIMIT_EXEMPT_ACCOUNTS: account.id },
        stdio: quiet(),
      }),
    );
    children.push(spawn(process.execPath, [self, '--bare'], { env: { ...process.env, DATABASE_URL: dbUrl, PORT: String(ports.bare) }, stdio: 'inherit' }));
    await Promise.all([waitReady(`http://127.0.0.1:${ports.gateway}`), waitReady(`http://127.0.0.1:${ports.bare}`)]);

    const gateway = `http://127.0.0.1:${ports.gateway}`;
    const bare = `http://127.0.0.1:${ports.bare}`;
    const auth = { authorization: `Bearer ${apiKey}` };
    const barePut = await measure(puts(bare, {}, 'bare'));
    const gatewayPut = await measure(puts(gateway, auth, 'gateway'));
    const bareGet = await measure(gets(bare, {}, 'bare'));
    const gatewayGet = await measure(gets(gateway, auth, 'gateway'));

    const result = {
      benchmark: 'PUT and GET /api/v1/contacts/{ref}',
      at: new Date().toISOString(),
      machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memory_gib: Math.round(totalmem() / 2 ** 30), node: process.version },
      note: 'Load generator, gateway, contacts-api, the bare server and PostgreSQL share the machine; other work on it at the same time (see load_1m, the load average when each run started) lowers the figures.',
      settings: { duration_s: DURATION, connections: CONNECTIONS, put: 'a new ref per request, name + email + one consent', get: 'refs created by the PUT run, in turn' },
      put: { bare_fastify_pg: barePut, gateway_contacts_api: gatewayPut, throughput_ratio: ratio(gatewayPut, barePut), customers_created: createdRefs.gateway.length },
      get: { bare_fastify_pg: bareGet, gateway_contacts_api: gatewayGet, throughput_ratio: ratio(gatewayGet, bareGet) },
    };
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    const file = join(root, 'bench/results', `contacts-${result.at.slice(0, 10)}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    console.table({ 'PUT bare': barePut, 'PUT gateway': gatewayPut, 'GET bare': bareGet, 'GET gateway': gatewayGet });
    console.log(`throughput ratio gateway/bare: PUT ${result.put.throughput_ratio}, GET ${result.get.throughput_ratio} — written to ${file}`);
    if (gatewayPut.errors > 0 || gatewayGet.errors > 0) process.exitCode = 1;
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((child) => (child.exitCode === null ? new Promise((r) => child.on('exit', r)) : null)));
    await onServer(`DROP DATABASE ${dbName} WITH (FORCE)`);
  }
}
