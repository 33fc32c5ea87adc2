import type { QueryResult, QueryResultRow } from 'pg';
import { DataSource } from 'typeorm';
import { SCRAPE_READ_TIMEOUT_MS } from '@svc/platform';
import { withConnection } from './sql';

/**
 * Runs a read-only statement for a gauge read on scrape, with PostgreSQL's own statement timeout
 * (so a slow count is cancelled in the server, not only abandoned by the scrape): one round trip
 * of a simple query (BEGIN; SET LOCAL; the statement; COMMIT). `sql` takes no parameters.
 */
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
