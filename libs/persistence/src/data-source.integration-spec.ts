import { randomBytes } from 'node:crypto';
import { Client, Pool } from 'pg';
import { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { createDataSource, migrate } from './data-source';

class CreateSamples1700000000000 implements MigrationInterface {
  name = 'CreateSamples1700000000000';
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE TABLE sample.samples (id serial PRIMARY KEY, at timestamptz NOT NULL)');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE sample.samples');
  }
}

/** Outside a transaction, like the chat's index migrations: it waits for every transaction that holds a snapshot. */
class IndexSamples1700000000001 implements MigrationInterface {
  name = 'IndexSamples1700000000001';
  transaction = false;
  async up(runner: QueryRunner): Promise<void> {
    await runner.query('CREATE INDEX CONCURRENTLY samples_at_idx ON sample.samples (at)');
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP INDEX CONCURRENTLY sample.samples_at_idx');
  }
}

// This library sits below @svc/testing, so it makes its throw-away database itself.
const SERVER = process.env['TEST_DATABASE_SERVER_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
async function onServer(sql: string): Promise<void> {
  const client = new Client({ connectionString: SERVER });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

describe('data source (real PostgreSQL)', () => {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const db = { url: Object.assign(new URL(SERVER), { pathname: `/${name}` }).toString() };
  let sources: DataSource[] = [];
  const open = () =>
    createDataSource({
      schema: 'sample',
      url: db.url,
      migrations: [CreateSamples1700000000000, IndexSamples1700000000001],
      poolSize: 3,
    }).initialize();

  beforeAll(async () => {
    await onServer(`CREATE DATABASE ${name}`);
    sources = await Promise.all([open(), open(), open()]);
  });
  afterAll(async () => {
    await Promise.all(sources.map((s) => s.destroy()));
    await onServer(`DROP DATABASE ${name} WITH (FORCE)`);
  });

  it('migrates once even when several replicas start together, CREATE INDEX CONCURRENTLY included', async () => {
    // A replica blocked in pg_advisory_lock holds a snapshot that CREATE INDEX CONCURRENTLY waits
    // for, while the lock it waits for is held by the migrating replica: no start ever ended.
    const applied = await Promise.all(sources.map((s) => migrate(s)));
    expect(applied.flat()).toEqual(['CreateSamples1700000000000', 'IndexSamples1700000000001']);
    expect(await migrate(sources[0]!)).toEqual([]);
  });

  it('a pooled client whose connection PostgreSQL ends while it is held between queries raises no uncaught error', async () => {
    // The pool listens to a client only while it is idle, TypeORM only while a query runner holds it.
    const pool = (sources[0]!.driver as unknown as { master: Pool }).master;
    const client = await pool.connect();
    const errors: Error[] = [];
    const seen = (err: Error) => errors.push(err);
    process.on('uncaughtException', seen);
    try {
      // Without one, node-postgres throws the error from its socket handler: the process ends.
      expect(client.listenerCount('error')).toBeGreaterThan(0);
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await sources[1]!.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(errors).toEqual([]);
      await expect(client.query('SELECT 1')).rejects.toThrow();
    } finally {
      process.off('uncaughtException', seen);
      client.release(true);
    }
  });

  it('round-trips microseconds and answers in UTC with +00:00, whatever offset was sent', async () => {
    const [row] = await sources[0]!.query('INSERT INTO sample.samples (at) VALUES ($1) RETURNING at', ['2026-11-21T12:04:05.123456+02:00']);
    expect(row.at).toBe('2026-11-21T10:04:05.123456+00:00');
    const [same] = await sources[1]!.query('SELECT count(*)::int AS n FROM sample.samples WHERE at = $1', ['2026-11-21T10:04:05.123456Z']);
    expect(same.n).toBe(1);
  });
});
