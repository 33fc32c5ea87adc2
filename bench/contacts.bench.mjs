// npm run bench:contacts — PUT /api/v1/contacts/{ref} (a new customer with one consent, a new ref
// every request) and GET /api/v1/contacts/{ref} through the gateway and contacts-api, beside a bare
// Fastify + pg handler doing the same SQL (lock or insert the customer, insert the consent, read
// the consents back, in one transaction) in the same run, measured with autocannon. Its reads are
// contacts-api's own statements and row shapes (dist/apps/contacts-api/src/customers.sql.js).
// The write limit is raised out of reach (WRITE_LIMIT_PER_MINUTE/PER_HOUR): every write is still
// counted in Redis, as in production, but none is refused.
// Needs `npm run build`, PostgreSQL and Redis on 127.0.0.1. Writes bench/results/contacts-*.json.
// `node bench/contacts.bench.mjs --bare` is the baseline server itself (PORT, DATABASE_URL).
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { benchDatabase, cpuMs, machine, root, roundSettings, startApp, stopProcesses, waitReady, writeResult } from './support.mjs';

const self = fileURLToPath(import.meta.url);
/** Write limits out of reach: the writes are counted as in production, and none is refused. */
const BENCH_WRITE_LIMIT = '1000000000';

/** @type {typeof import('../apps/contacts-api/src/customers.sql.js')} */
const { CONSENTS_OF_SQL, CUSTOMER_COLUMNS, customerSql, toConsent, toContact, withConsentsSql } = createRequire(import.meta.url)(
  join(root, 'dist/apps/contacts-api/src/customers.sql.js'),
);
/** @typedef {'bare' | 'gateway'} Side */
/**
 * @typedef {object} Measured One measured run of a side.
 * @property {number} requests_per_s
 * @property {number} p50_ms
 * @property {number} p99_ms
 * @property {number} errors
 * @property {number} cpu_ms_per_request
 * @property {number} load_1m
 */
/**
 * @typedef {object} PutBody What the bench PUTs (the baseline trusts it: no validation).
 * @property {string} [name]
 * @property {string | null} [email]
 * @property {{ purpose: string, text: string, lang: string, given_at: string, source: string }[]} [consents]
 */

/**
 * A consent as the API answers it: with whether it is active.
 * @param {import('../libs/contracts/src/index.js').StoredConsent} consent
 */
const withActive = (consent) => ({ ...consent, active: consent.granted && consent.withdrawn_at === null });

/** The baseline: contacts-api's SQL for the same two calls, without Nest, validation, auth or logs. */
async function bareServer() {
  pg.types.setTypeParser(1184, (text) => text); // timestamptz as text, as contacts-api reads it
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10, options: '-c timezone=UTC' });
  const accountId = randomUUID();
  /**
   * @param {import('pg').PoolClient} db
   * @param {string} svcId
   */
  const consentsOf = async (db, svcId) => (await db.query(CONSENTS_OF_SQL.text, [accountId, svcId])).rows.map(withActive);
  const app = Fastify();
  app.put('/api/v1/contacts/:ref', async (request, reply) => {
    const { ref } = /** @type {{ ref: string }} */ (request.params);
    const { name = '', email = null, consents = [] } = /** @type {PutBody} */ (request.body);
    const db = await pool.connect();
    try {
      await db.query('BEGIN');
      let [customer] = (await db.query(customerSql('ref', true), [accountId, ref])).rows;
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
      return { ...customer, svc_id: Number(customer.svc_id), consents: rows };
    } catch (err) {
      await db.query('ROLLBACK');
      throw err;
    } finally {
      db.release();
    }
  });
  app.get('/api/v1/contacts/:ref', async (request, reply) => {
    const { ref } = /** @type {{ ref: string }} */ (request.params);
    const { rows } = await pool.query(withConsentsSql('ref'), [accountId, ref]);
    if (rows.length === 0) return reply.code(404).send({ error: { code: 'not_found', message: 'No such customer.' } });
    const consents = rows.filter((row) => row.purpose !== null).map((row) => withActive(toConsent(row)));
    return { ...toContact(rows[0]), consents };
  });
  app.get('/readyz', async () => ({ status: 'ready' }));
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
  process.on('SIGTERM', () =>
    app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
  );
}

if (process.argv.includes('--bare')) {
  await bareServer();
} else {
  await bench();
}

async function bench() {
  const { duration: DURATION, connections: CONNECTIONS, rounds: ROUNDS } = roundSettings({ duration: 10, connections: 50, rounds: 3 });
  const ports = { gateway: 3920, contacts: 3921, bare: 3922 };

  const consent = {
    purpose: 'future_email',
    text: 'Yes, send me offers and news by email.',
    lang: 'en',
    given_at: '2026-11-21T11:04:05.123456+01:00',
    source: 'website_form',
  };
  const putBody = JSON.stringify({ name: 'Ada Lovelace', email: 'ada@example.com', consents: [consent] });
  const prefix = randomBytes(4).toString('hex');
  /**
   * Refs each server answered 201 for: what its GET run reads.
   * @type {Record<Side, string[]>}
   */
  const createdRefs = { bare: [], gateway: [] };
  /** Refs handed out per server, over warm-ups and measured runs alike: every PUT creates. */
  const refsSent = { bare: 0, gateway: 0 };
  /**
   * @param {string} base
   * @param {Record<string, string>} headers
   * @param {import('autocannon').Request} request
   * @param {number} duration
   */
  const load = (base, headers, request, duration) =>
    autocannon({ url: base, connections: CONNECTIONS, duration, headers, requests: [request] });

  /**
   * PUTs, each with a ref never used before (autocannon keeps one request in flight per connection).
   * @param {string} base
   * @param {Record<string, string>} headers
   * @param {Side} label
   * @param {number} duration
   */
  const puts = (base, headers, label, duration) =>
    load(
      base,
      { ...headers, 'content-type': 'application/json' },
      {
        method: 'PUT',
        body: putBody,
        setupRequest: (request, context) => {
          context.ref = `${prefix}-${refsSent[label]++}`;
          return { ...request, path: `/api/v1/contacts/${context.ref}` };
        },
        onResponse: (status, _body, context) => {
          if (status === 201) createdRefs[label].push(/** @type {string} */ (context.ref)); // setupRequest set it
        },
      },
      duration,
    );
  /**
   * GETs cycling over the customers the PUT run created on that server.
   * @param {string} base
   * @param {Record<string, string>} headers
   * @param {Side} label
   * @param {number} duration
   */
  const gets = (base, headers, label, duration) => {
    const refs = createdRefs[label];
    let next = 0;
    return load(
      base,
      headers,
      { method: 'GET', setupRequest: (request) => ({ ...request, path: `/api/v1/contacts/${refs[next++ % refs.length]}` }) },
      duration,
    );
  };
  /**
   * One measured run (after a 2-second warm-up with the same requests when `warm`): throughput and
   * latency, the CPU the serving processes spent per request (PostgreSQL's excluded: the same SQL
   * on both sides), and the machine's 1-minute load average when it started.
   * @param {import('node:child_process').ChildProcess[]} servers
   * @param {(duration: number) => Promise<import('autocannon').Result>} run
   * @param {boolean} warm
   * @returns {Promise<Measured>}
   */
  const measure = async (servers, run, warm) => {
    if (warm) await run(2);
    const load_1m = Math.round(loadavg()[0] * 100) / 100;
    const before = servers.map((child) => cpuMs(child.pid));
    const r = await run(DURATION);
    const cpu = servers.reduce((sum, child, i) => sum + cpuMs(child.pid) - before[i], 0);
    return {
      requests_per_s: Math.round(r.requests.average),
      p50_ms: r.latency.p50,
      p99_ms: r.latency.p99,
      errors: r.errors + r.non2xx + r.timeouts,
      cpu_ms_per_request: Math.round((cpu / r.requests.total) * 1000) / 1000,
      load_1m,
    };
  };
  /** @param {Measured[]} runs */
  const median = (runs) => [...runs].sort((a, b) => a.requests_per_s - b.requests_per_s)[Math.floor(runs.length / 2)];
  /**
   * @param {Measured} a
   * @param {Measured} b
   */
  const ratio = (a, b) => Math.round((a.requests_per_s / b.requests_per_s) * 100) / 100;
  /**
   * @param {Measured} a
   * @param {Measured} b
   */
  const cpuRatio = (a, b) => Math.round((a.cpu_ms_per_request / b.cpu_ms_per_request) * 100) / 100;

  const { database, env, apiKey } = await benchDatabase(process.env.BENCH_LOG_LEVEL ?? 'info');

  /** @returns {import('node:child_process').StdioOptions} */
  const quiet = () => ['ignore', openSync('/dev/null', 'w'), 'inherit'];
  /** @type {import('node:child_process').ChildProcess[]} */
  const children = [];
  try {
    // contacts-api first: it migrates schema `contacts`, which the bare handler writes too.
    // No chat here: a write does not wait for the chat's model of customers (CHAT_URL empty, ADR 014).
    await startApp(children, 'contacts-api', { port: ports.contacts, env: { ...env, CHAT_URL: '' }, stdio: quiet() });
    const gatewayReady = startApp(children, 'gateway', {
      port: ports.gateway,
      env: {
        ...env,
        CONTACTS_API_URL: `http://127.0.0.1:${ports.contacts}`,
        WRITE_LIMIT_PER_MINUTE: BENCH_WRITE_LIMIT,
        WRITE_LIMIT_PER_HOUR: BENCH_WRITE_LIMIT,
      },
      stdio: quiet(),
    });
    children.push(
      spawn(process.execPath, [self, '--bare'], {
        env: { ...process.env, DATABASE_URL: database.url, PORT: String(ports.bare) },
        stdio: 'inherit',
      }),
    );
    await Promise.all([gatewayReady, waitReady(`http://127.0.0.1:${ports.bare}`)]);

    const gateway = `http://127.0.0.1:${ports.gateway}`;
    const bare = `http://127.0.0.1:${ports.bare}`;
    const auth = { authorization: `Bearer ${apiKey}` };
    const [contactsApi, gatewayApp, bareApp] = children;
    const sides = {
      bare: { url: bare, headers: {}, servers: [bareApp] },
      gateway: { url: gateway, headers: auth, servers: [gatewayApp, contactsApi] },
    };
    // Bare and gateway runs alternate, so that other work on the machine weighs on both alike;
    // each side's median run (by throughput) is the figure.
    /** @type {Record<'put' | 'get', Record<Side, Measured[]>>} */
    const runs = { put: { bare: [], gateway: [] }, get: { bare: [], gateway: [] } };
    for (const [kind, calls] of /** @type {['put' | 'get', typeof puts][]} */ ([
      ['put', puts],
      ['get', gets],
    ])) {
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const [label, side] of /** @type {[Side, (typeof sides)[Side]][]} */ (Object.entries(sides))) {
          runs[kind][label].push(await measure(side.servers, (duration) => calls(side.url, side.headers, label, duration), round === 0));
        }
      }
    }
    /** @param {'put' | 'get'} kind */
    const figures = (kind) => {
      const [bareRun, gatewayRun] = [median(runs[kind].bare), median(runs[kind].gateway)];
      return {
        bare_fastify_pg: bareRun,
        gateway_contacts_api: gatewayRun,
        throughput_ratio: ratio(gatewayRun, bareRun),
        cpu_ratio: cpuRatio(gatewayRun, bareRun),
        runs: runs[kind],
      };
    };
    const [put, get] = [figures('put'), figures('get')];
    const result = {
      benchmark: 'PUT and GET /api/v1/contacts/{ref}',
      at: new Date().toISOString(),
      machine: machine(),
      note: 'Load generator, gateway, contacts-api, the bare server and PostgreSQL share 2 cores with other work (load_1m: the load average when each run started), which lowers throughput; cpu_ms_per_request (CPU of the serving processes per request) depends much less on it.',
      settings: {
        duration_s: DURATION,
        connections: CONNECTIONS,
        rounds: ROUNDS,
        put: 'a new ref per request, name + email + one consent',
        get: 'refs created by the PUT run, in turn',
      },
      put,
      get,
    };
    const file = writeResult('contacts', result.at, result);
    console.table({
      'PUT bare': put.bare_fastify_pg,
      'PUT gateway': put.gateway_contacts_api,
      'GET bare': get.bare_fastify_pg,
      'GET gateway': get.gateway_contacts_api,
    });
    console.log(
      `gateway + contacts-api / bare: throughput PUT ${result.put.throughput_ratio}, GET ${result.get.throughput_ratio}; CPU per request PUT ${result.put.cpu_ratio}×, GET ${result.get.cpu_ratio}× — written to ${file}`,
    );
    if ([...runs.put.gateway, ...runs.get.gateway].some((run) => run.errors > 0)) process.exitCode = 1;
  } finally {
    await stopProcesses(children);
    await database.drop();
  }
}
