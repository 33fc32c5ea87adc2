import type { Client, PoolClient, QueryResultRow } from 'pg';
import { EntityManager } from 'typeorm';
import type { DataSource, QueryRunner } from 'typeorm';
import type { Selectable } from 'kysely';

/**
 * Where a statement runs: a DataSource (a pooled connection), a transaction's EntityManager or a QueryRunner.
 * Statements are plain SQL with `$n` parameters and a row type: `queryRows<CustomerRow>(db, sql, params)`.
 */
export type Queryable = DataSource | EntityManager | QueryRunner;

/** A node-postgres parameter; send JSON as text (`JSON.stringify`) so an array is never taken for a PostgreSQL array. */
export type SqlParam = string | number | bigint | boolean | null | Buffer | Date | readonly SqlParam[];

/** A named prepared statement: one name, one text. See docs/adr/003-named-prepared-statements.md */
export interface PreparedStatement {
  name: string;
  text: string;
}

export type Statement = string | PreparedStatement;

/**
 * A CTE that makes its transaction commit without waiting for the WAL flush: `WITH async_commit AS (${ASYNC_COMMIT}) …`.
 * Only for work that is redone when a crash loses it. See docs/adr/002-webhook-leases-async-commit.md
 */
export const ASYNC_COMMIT = `SELECT set_config('synchronous_commit', 'off', true)`;

interface Outcome {
  rows: readonly QueryResultRow[];
  /** Rows the statement returned, inserted, updated or deleted (PostgreSQL's command tag). */
  rowCount: number;
}

/**
 * A row of some of a table's columns, the table's type generated from the migrations' schema
 * (`npm run db:types`, ADR 017): `Columns<Customers, 'svc_id' | 'ref'>`. Renaming or dropping a
 * column in a migration makes every row type that names it fail to type-check.
 */
export type Columns<Table, Column extends keyof Selectable<Table>> = Pick<Selectable<Table>, Column>;

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

/** Lends `work` the node-postgres client under `db`'s connection, for prepared statements and multi-statement queries. */
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

/** Runs `work` on `db`'s QueryRunner (its own, its transaction's, or a new one released after). */
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

/** LISTENs on lower-case `channels` on a client the caller owns (never a pooled one). */
export async function listen(client: Client, channels: readonly string[]): Promise<void> {
  await client.query(channels.map((channel) => `LISTEN ${channel}`).join('; '));
}
