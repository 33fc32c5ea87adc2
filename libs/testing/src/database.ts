import { createDataSource, migrate, SchemaOptions } from '@svc/persistence';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { DataSource } from 'typeorm';

/** Where tests create their throw-away databases (a server they may create databases on). */
export const TEST_SERVER_URL = process.env['TEST_DATABASE_SERVER_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

async function withServer<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A new, empty database for one suite; `drop()` removes it (closing what still holds it).
 * `serverUrl`: another server than the shared one (a `PrivatePostgres` a fault test stops).
 */
export async function createTestDatabase(serverUrl = TEST_SERVER_URL): Promise<TestDatabase> {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  await withServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** A throw-away database with one app's schema migrated, for a repository's suite; `drop()` closes its data source first. */
export interface SchemaDatabase extends TestDatabase {
  dataSource: DataSource;
}

/** A new database on the shared server with `options.schema` migrated, through a data source of `options.poolSize`. */
export async function createSchemaDatabase(options: Omit<SchemaOptions, 'url'>): Promise<SchemaDatabase> {
  const db = await createTestDatabase();
  const dataSource = createDataSource({ ...options, url: db.url });
  try {
    await dataSource.initialize();
    await migrate(dataSource);
  } catch (err) {
    if (dataSource.isInitialized) await dataSource.destroy();
    await db.drop();
    throw err;
  }
  return {
    url: db.url,
    dataSource,
    drop: async () => {
      await dataSource.destroy();
      await db.drop();
    },
  };
}

/** A schema database for the suite it is declared in (at the top of its `describe`): created before its tests, dropped after them. */
export function suiteSchemaDatabase(options: Omit<SchemaOptions, 'url'>): Pick<SchemaDatabase, 'url' | 'dataSource'> {
  let created: SchemaDatabase | undefined;
  beforeAll(async () => {
    created = await createSchemaDatabase(options);
  });
  afterAll(async () => {
    await created?.drop();
  });
  const ready = (): SchemaDatabase => {
    if (!created) throw new Error('the suite database is created in beforeAll: use it in a test');
    return created;
  };
  return {
    get url() {
      return ready().url;
    },
    get dataSource() {
      return ready().dataSource;
    },
  };
}
