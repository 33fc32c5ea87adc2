import { types } from 'pg';
import { DataSource, MigrationInterface } from 'typeorm';
import { execute } from './sql';
import { formatTimestamp } from './timestamps';

const TIMESTAMPTZ_OID = 1184;

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
      types: {
        getTypeParser: (oid: number, format?: 'text' | 'binary') =>
          oid === TIMESTAMPTZ_OID ? formatTimestamp : types.getTypeParser(oid, format as 'text'),
      },
    },
  });
}

/** Creates the schema and applies pending migrations under an advisory lock (replicas migrate in turn). */
export async function migrate(dataSource: DataSource): Promise<string[]> {
  const schema = (dataSource.options as { schema: string }).schema;
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await execute(runner, 'SELECT pg_advisory_lock(hashtext($1))', [`migrations:${schema}`]);
    try {
      await execute(runner, `CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return applied.map((m) => m.name);
    } finally {
      await execute(runner, 'SELECT pg_advisory_unlock(hashtext($1))', [`migrations:${schema}`]);
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
