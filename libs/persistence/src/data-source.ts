import type { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { types } from 'pg';
import { DataSource, MigrationInterface } from 'typeorm';
import { formatTimestamp } from './timestamps';
import { execute, queryOne, sql } from './statements';

const TIMESTAMPTZ_OID = 1184;

/** The pool removes a client that failed; its holder learns of it from its next query. */
function ignoreClientError(): void {}

/** The local development database (`npm start` creates it). */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/svc';

export interface SchemaOptions {
  /** The PostgreSQL schema this app owns; nothing else writes to it. */
  schema: string;
  url: string;
  migrations: Array<new () => MigrationInterface>;
  poolSize?: number;
  applicationName?: string;
}

/** A TypeORM data source for one schema; UTC session, timestamptz returned as canonical text, never Date. */
export function createDataSource(options: SchemaOptions): DataSource {
  return new DataSource({
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    applicationName: options.applicationName ?? options.schema,
    extra: {
      max: options.poolSize ?? 10,
      options: '-c timezone=UTC',
      connectionTimeoutMillis: 5_000,
      // Every client keeps a listener for 'error' from its first connection to its end. The pool
      // and TypeORM each listen only while they hold a client, and node-postgres emits an error
      // with nobody listening when PostgreSQL stops ("terminating connection due to administrator
      // command") in between: an uncaught exception that ended webhook-dispatcher replicas in the
      // chaos test. The holder still sees the error: its next query fails (not queryable).
      onConnect: (client: EventEmitter) => void client.on('error', ignoreClientError),
      types: {
        getTypeParser: (oid: number, format?: 'text' | 'binary') =>
          oid === TIMESTAMPTZ_OID ? formatTimestamp : types.getTypeParser(oid, format as 'text'),
      },
    },
  });
}

/** The longest pause between two tries for the migration lock. */
const LOCK_RETRY_MAX_MS = 1_000;

/**
 * Creates the schema and applies pending migrations under an advisory lock (replicas migrate in
 * turn). The lock is tried, never waited for inside PostgreSQL: a session blocked in
 * `pg_advisory_lock` holds a snapshot, and `CREATE INDEX CONCURRENTLY` in the migrating replica
 * waits for every snapshot, so two replicas starting together would wait for each other forever
 * (a cycle through the application that PostgreSQL's deadlock detector cannot see).
 */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  const schema = (dataSource.options as { schema: string }).schema;
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    for (let delayMs = 50; ; delayMs = Math.min(delayMs * 2, LOCK_RETRY_MAX_MS)) {
      const row = await queryOne<{ locked: boolean }>(
        runner,
        sql('persistence_data_source_migrate')`SELECT pg_try_advisory_lock(hashtext($1)) AS locked`,
        [`migrations:${schema}`],
      );
      if (row?.locked) break;
      await sleep(delayMs);
    }
    try {
      await execute(runner, `CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await execute(runner, sql('persistence_data_source_migrate_2')`SELECT pg_advisory_unlock(hashtext($1))`, [`migrations:${schema}`]);
    }
  } finally {
    await runner.release();
  }
}

/** A migration command's whole body: DATABASE_URL from the environment, log what ran, exit code. */
export async function runMigrations(options: Omit<SchemaOptions, 'url'>): Promise<void> {
  const url = process.env['DATABASE_URL'] ?? DEFAULT_DATABASE_URL;
  const dataSource = await createDataSource({ ...options, url, poolSize: 2 }).initialize();
  try {
    const applied = await migrate(dataSource);
    process.stdout.write(`${JSON.stringify({ schema: options.schema, applied })}\n`);
  } catch (err) {
    process.stderr.write(`migrations of schema ${options.schema} failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    await dataSource.destroy();
  }
}
