import type { QueryResult, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { SCRAPE_READ_TIMEOUT_MS } from '@svc/platform';
import { withConnection } from './sql';

/** A gauge's read-only statement (no parameters) under a server-side statement_timeout, in one round trip. */
export async function scrapeQuery<T extends QueryResultRow>(db: DataSource, sql: string, timeoutMs = SCRAPE_READ_TIMEOUT_MS): Promise<T[]> {
  return withConnection(db, async (client) => {
    try {
      const results = (await client.query(
        `BEGIN READ ONLY; SET LOCAL statement_timeout = ${Math.trunc(timeoutMs)}; ${sql}; COMMIT`,
      )) as unknown as Array<QueryResult<T>>;
      return results[2]?.rows ?? [];
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  });
}
