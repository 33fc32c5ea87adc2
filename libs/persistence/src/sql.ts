import type { Client, PoolClient, QueryResultRow } from 'pg';
import { EntityManager } from 'typeorm';
import type { DataSource, QueryRunner } from 'typeorm';

/**
 * The typed way to run SQL. TypeORM keeps the connections and the migrations; statements are
 * plain SQL with `$n` parameters, and each states the shape of its rows, so that a renamed or
 * retyped column shows up in the type check of the code that reads it:
 *
 *     interface CustomerRow { svc_id: string; name: string | null }
 *     const rows = await queryRows<CustomerRow>(db, 'SELECT svc_id, name FROM contacts.customers WHERE account_id = $1', [accountId]);
 *
 * `db` is where the statement runs: a DataSource (a pooled connection for this statement), the
 * EntityManager of a `transaction()` (inside it) or a QueryRunner (on its connection).
 */
export type Queryable = DataSource | EntityManager | QueryRunner;

/**
 * A parameter as node-postgres sends it: Buffer as bytea, arrays as PostgreSQL arrays, Date as a
 * timestamp. JSON goes as text (`JSON.stringify`), so that an array is never taken for a
 * PostgreSQL array by mistake; `undefined` is not a parameter (say `null`).
 */
export type SqlParam = string | number | bigint | boolean | null | Buffer | Date | readonly SqlParam[];

/**
 * A statement PostgreSQL plans once per connection and reuses (a named prepared statement), for
 * statements that run many times a second. One name, one text, everywhere.
 */
export interface PreparedStatement {
  name: string;
  text: string;
}

export type Statement = string | PreparedStatement;

/**
 * A one-row query that makes the transaction it runs in commit without waiting for the WAL flush
 * (`set_config(…, true)` lasts until the end of that transaction), for a statement to name as a CTE
 * or a FROM item: `WITH async_commit AS (${ASYNC_COMMIT}) …`. Only for work that is done again when
 * a crash of PostgreSQL itself loses it.
 */
export const ASYNC_COMMIT = `SELECT set_config('synchronous_commit', 'off', true)`;

interface Outcome {
  rows: readonly QueryResultRow[];
  /** Rows the statement returned, inserted, updated or deleted (PostgreSQL's command tag). */
  rowCount: number;
}

/** The statement's rows. `Row` is what the SELECT list (or RETURNING) gives, by column name. */
export async function queryRows<Row extends object>(db: Queryable, statement: Statement, params: readonly SqlParam[] = []): Promise<Row[]> {
  return (await run(db, statement, params)).rows as Row[];
}

/** The statement's first row, undefined when it returned none. */
export async function queryOne<Row extends object>(
  db: Queryable,
  statement: Statement,
  params: readonly SqlParam[] = [],
): Promise<Row | undefined> {
  return (await queryRows<Row>(db, statement, params))[0];
}

/** Runs a statement for its effect; returns how many rows it inserted, updated or deleted. */
export async function execute(db: Queryable, statement: Statement, params: readonly SqlParam[] = []): Promise<number> {
  return (await run(db, statement, params)).rowCount;
}

/**
 * Lends `work` the node-postgres client under `db`'s connection (the one of its transaction, or
 * one from the data source's pool, returned after `work`). The one place that reaches below
 * TypeORM, for what its `query()` does not do: named prepared statements, and several statements
 * sent in one round trip (a simple query, whose results come back one per statement).
 */
export async function withConnection<T>(db: Queryable, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return onRunner(db, async (runner) => work((await runner.connect()) as PoolClient));
}

async function run(db: Queryable, statement: Statement, params: readonly SqlParam[]): Promise<Outcome> {
  const values = [...params];
  if (typeof statement !== 'string') {
    const result = await withConnection(db, (client) => client.query({ ...statement, values }));
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  }
  // The structured result: TypeORM's plain one is `[rows, count]` after UPDATE and DELETE.
  const result = await onRunner(db, (runner) => runner.query(statement, values, true));
  return { rows: result.records as QueryResultRow[], rowCount: result.affected ?? 0 };
}

/**
 * Runs `work` on the QueryRunner of `db`: its own, its transaction's, or a new one of the data
 * source (the one kind that makes them), released after.
 */
async function onRunner<T>(db: Queryable, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
  if (db instanceof EntityManager) return onRunner(db.queryRunner ?? db.connection, work);
  if (!('createQueryRunner' in db)) return work(db);
  const runner = db.createQueryRunner();
  try {
    return await work(runner);
  } finally {
    await runner.release();
  }
}

/**
 * LISTENs on `channels` (names as `pg_notify` is given them, lower case) on a connection of its
 * own, which the caller opened and keeps: its notifications arrive as the client's `notification`
 * events. A pooled connection never listens: the pool would hand it to other work.
 */
export async function listen(client: Client, channels: readonly string[]): Promise<void> {
  await client.query(channels.map((channel) => `LISTEN ${channel}`).join('; '));
}
