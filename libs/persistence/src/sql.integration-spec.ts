import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource, QueryRunner } from 'typeorm';
import { createDataSource } from './data-source';
import { ASYNC_COMMIT, execute, queryOne, queryRows, withConnection } from './sql';

// This library sits below @svc/testing, so it makes its throw-away database itself.
const SERVER = process.env['TEST_DATABASE_SERVER_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const NAME = `svc_test_${randomBytes(6).toString('hex')}`;
async function onServer(sql: string): Promise<void> {
  const client = new Client({ connectionString: SERVER });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

interface ItemRow {
  id: number;
  label: string;
  data: Buffer;
}

describe('typed queries (real PostgreSQL)', () => {
  let db: DataSource;
  const count = async (): Promise<number> => (await queryOne<{ n: number }>(db, 'SELECT count(*)::int AS n FROM sample.items'))?.n ?? -1;

  beforeAll(async () => {
    await onServer(`CREATE DATABASE ${NAME}`);
    const url = Object.assign(new URL(SERVER), { pathname: `/${NAME}` }).toString();
    db = await createDataSource({ schema: 'sample', url, migrations: [], poolSize: 2 }).initialize();
    await execute(db, 'CREATE SCHEMA sample; CREATE TABLE sample.items (id serial PRIMARY KEY, label text NOT NULL, data bytea NOT NULL)');
  });
  afterAll(async () => {
    await db.destroy();
    await onServer(`DROP DATABASE ${NAME} WITH (FORCE)`);
  });
  beforeEach(() => execute(db, 'TRUNCATE sample.items RESTART IDENTITY'));

  it('returns the rows of a SELECT or a RETURNING, with parameters of every kind', async () => {
    const inserted = await queryRows<ItemRow>(
      db,
      'INSERT INTO sample.items (label, data) SELECT * FROM unnest($1::text[], $2::bytea[]) RETURNING id, label, data',
      [
        ['a', 'b'],
        [Buffer.from([1]), Buffer.from([2, 3])],
      ],
    );
    expect(inserted).toEqual([
      { id: 1, label: 'a', data: Buffer.from([1]) },
      { id: 2, label: 'b', data: Buffer.from([2, 3]) },
    ]);
    expect(await queryRows<Pick<ItemRow, 'label'>>(db, 'SELECT label FROM sample.items WHERE id > $1 ORDER BY id', [1])).toEqual([
      { label: 'b' },
    ]);
    expect(await queryOne<ItemRow>(db, 'SELECT * FROM sample.items WHERE id = $1', [9])).toBeUndefined();
  });

  it('returns the rows of an UPDATE or a DELETE too (TypeORM alone gives [rows, count] there)', async () => {
    await execute(db, `INSERT INTO sample.items (label, data) VALUES ('a', '\\x00'), ('b', '\\x00')`);
    expect(await queryRows<Pick<ItemRow, 'id'>>(db, `UPDATE sample.items SET label = 'c' WHERE id = $1 RETURNING id`, [2])).toEqual([
      { id: 2 },
    ]);
    expect(await queryOne<Pick<ItemRow, 'label'>>(db, 'DELETE FROM sample.items WHERE id = $1 RETURNING label', [2])).toEqual({
      label: 'c',
    });
  });

  it('counts the rows a statement inserted, updated or deleted', async () => {
    expect(await execute(db, `INSERT INTO sample.items (label, data) VALUES ('a', '\\x00'), ('b', '\\x00'), ('c', '\\x00')`)).toBe(3);
    expect(await execute(db, `UPDATE sample.items SET label = 'x' WHERE id <= $1`, [2])).toBe(2);
    expect(await execute(db, 'DELETE FROM sample.items WHERE id = $1', [9])).toBe(0);
    expect(await execute(db, 'DELETE FROM sample.items')).toBe(3);
  });

  it('ASYNC_COMMIT turns off the wait for the WAL flush in its own transaction only', async () => {
    const setting = async (runner: QueryRunner) =>
      (await queryOne<{ value: string }>(runner, `SELECT current_setting('synchronous_commit') AS value`))?.value;
    const runner = db.createQueryRunner();
    try {
      await runner.startTransaction();
      const added = await execute(
        runner,
        `WITH async_commit AS (${ASYNC_COMMIT}) INSERT INTO sample.items (label, data) SELECT 'a', '\\x00' FROM async_commit`,
      );
      expect(added).toBe(1);
      expect(await setting(runner)).toBe('off');
      await runner.commitTransaction();
      // The same connection, after the commit: the server's setting again.
      expect(await setting(runner)).toBe('on');
    } finally {
      await runner.release();
    }
    expect(await count()).toBe(1);
  });

  it("runs in the transaction of the EntityManager it is given, and on a QueryRunner's connection", async () => {
    await db
      .transaction(async (tx) => {
        await execute(tx, `INSERT INTO sample.items (label, data) VALUES ('a', '\\x00')`);
        expect(await queryOne<{ n: number }>(tx, 'SELECT count(*)::int AS n FROM sample.items')).toEqual({ n: 1 });
        expect(await count()).toBe(0);
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await count()).toBe(0);

    const runner = db.createQueryRunner();
    try {
      await runner.startTransaction();
      await execute(runner, `INSERT INTO sample.items (label, data) VALUES ('a', '\\x00')`);
      expect(await count()).toBe(0);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    expect(await count()).toBe(1);
  });

  it('prepares a named statement once per connection and runs it with new parameters', async () => {
    const insert = { name: 'sample_insert', text: 'INSERT INTO sample.items (label, data) VALUES ($1, $2) RETURNING id' };
    const runner = db.createQueryRunner();
    try {
      for (const label of ['a', 'b', 'c'])
        expect(await queryRows<Pick<ItemRow, 'id'>>(runner, insert, [label, Buffer.alloc(0)])).toHaveLength(1);
      const prepared = await queryRows<{ name: string }>(runner, 'SELECT name FROM pg_prepared_statements');
      expect(prepared).toEqual([{ name: 'sample_insert' }]);
    } finally {
      await runner.release();
    }
    expect(await execute(db, { name: 'sample_relabel', text: 'UPDATE sample.items SET label = $1' }, ['z'])).toBe(3);
    const labels = await withConnection(
      db,
      async (client) => (await client.query<{ label: string }>('SELECT DISTINCT label FROM sample.items')).rows,
    );
    expect(labels).toEqual([{ label: 'z' }]);
  });
});
