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

/**
 * A statement of the code, keyed (`sql('chat_bookings_list')`…``) so that its parameters are typed
 * from the schema: `npm run db:types` prepares it on the migrated schema and writes the types
 * PostgreSQL infers for its `$n` to its project's `statements.generated.ts` (ADR 017). A prepared one
 * is also a named prepared statement, its key its name, planned once per connection (ADR 003).
 */
export interface Sql<Params extends readonly unknown[]> {
  readonly key: string;
  readonly text: string;
  readonly name?: string;
  /** Never set: the statement's parameters, as a type both ways (a statement takes exactly its own). */
  readonly params?: (params: Params) => Params;
}

/** A statement built at run time (a schema's outbox, a `$n` list as long as a batch): its text, or a named one's name and text. */
export type RuntimeStatement = string | { readonly name: string; readonly text: string };

/** What a runner runs: a keyed statement or one built at run time. */
export type Statement = string | { readonly name?: string; readonly text: string };

/** What a project's runners take: a keyed statement and its parameters, or a statement built at run time with any. */
export type Query<Statements> =
  | {
      [Key in keyof Statements]: Statements[Key] extends []
        ? [statement: Sql<[]>, params?: []]
        : [statement: Sql<Statements[Key] & readonly unknown[]>, params: Statements[Key]];
    }[keyof Statements]
  | [statement: RuntimeStatement, params?: readonly SqlParam[]];

/** A template's text, its `${…}` parts constants of the code (tools/sql-statements.mjs reads them the same way). */
const textOf = (strings: TemplateStringsArray, parts: ReadonlyArray<string | number>): string =>
  strings.reduce((text, chunk, index) => text + chunk + (index < parts.length ? String(parts[index]) : ''), '');

/**
 * A project's statement tags and runners, typed by its generated `Statements` (each key's parameters):
 * `export const { sql, prepared, queryRows, queryOne, execute } = statementsOf<Statements>();` in its
 * `statements.ts`. A key the generated file does not hold yet fails `tsc` until `npm run db:types`.
 */
export function statementsOf<Statements>() {
  type Key = keyof Statements & string;
  type Tag<K extends Key> = (strings: TemplateStringsArray, ...parts: Array<string | number>) => Sql<Statements[K] & readonly unknown[]>;
  return {
    /** A statement: `sql('chat_bookings_list')`SELECT …``. */
    sql:
      <K extends Key>(key: K): Tag<K> =>
      (strings, ...parts) => ({ key, text: textOf(strings, parts) }),
    /** A named prepared statement, for the hot paths (ADR 003): `prepared('chat_lock')`SELECT …``. */
    prepared:
      <K extends Key>(key: K): Tag<K> =>
      (strings, ...parts) => ({ key, name: key, text: textOf(strings, parts) }),
    /** The statement's rows. `Row` is what the SELECT list (or RETURNING) gives, by column name. */
    queryRows: <Row extends object>(db: Queryable, ...[statement, params]: Query<Statements>): Promise<Row[]> =>
      queryRows<Row>(db, statement, params as readonly SqlParam[] | undefined),
    /** The statement's first row, undefined when it returned none. */
    queryOne: <Row extends object>(db: Queryable, ...[statement, params]: Query<Statements>): Promise<Row | undefined> =>
      queryOne<Row>(db, statement, params as readonly SqlParam[] | undefined),
    /** Runs a statement for its effect; returns how many rows it inserted, updated or deleted. */
    execute: (db: Queryable, ...[statement, params]: Query<Statements>): Promise<number> =>
      execute(db, statement, params as readonly SqlParam[] | undefined),
  };
}

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

/**
 * The statement's rows, its parameters untyped: for tests and tools. The apps' code runs its
 * statements through its project's typed runners (`statementsOf`).
 */
export async function queryRows<Row extends object>(db: Queryable, statement: Statement, params: readonly SqlParam[] = []): Promise<Row[]> {
  return (await run(db, statement, params)).rows as Row[];
}

/** The statement's first row, undefined when it returned none (untyped parameters, as `queryRows`). */
export async function queryOne<Row extends object>(
  db: Queryable,
  statement: Statement,
  params: readonly SqlParam[] = [],
): Promise<Row | undefined> {
  return (await queryRows<Row>(db, statement, params))[0];
}

/** Runs a statement for its effect; returns how many rows it inserted, updated or deleted (untyped parameters, as `queryRows`). */
export async function execute(db: Queryable, statement: Statement, params: readonly SqlParam[] = []): Promise<number> {
  return (await run(db, statement, params)).rowCount;
}

/** Lends `work` the node-postgres client under `db`'s connection, for prepared statements and multi-statement queries. */
export async function withConnection<T>(db: Queryable, work: (client: PoolClient) => Promise<T>): Promise<T> {
  return onRunner(db, async (runner) => work((await runner.connect()) as PoolClient));
}

async function run(db: Queryable, statement: Statement, params: readonly SqlParam[]): Promise<Outcome> {
  const values = [...params];
  if (typeof statement !== 'string' && statement.name !== undefined) {
    const { name, text } = statement;
    const result = await withConnection(db, (client) => client.query({ name, text, values }));
    return { rows: result.rows, rowCount: result.rowCount ?? 0 };
  }
  const text = typeof statement === 'string' ? statement : statement.text;
  // The structured result: TypeORM's plain one is `[rows, count]` after UPDATE and DELETE.
  const result = await onRunner(db, (runner) => runner.query(text, values, true));
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
