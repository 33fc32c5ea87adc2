import { Queryable, queryRows } from '@svc/persistence';

/** A table of jobs: `id`, `attempts` and `next_attempt_at` (when it is due, or when its lease ends). */
export interface JobTable {
  /** `schema.table`. */
  table: string;
  /** The SQL condition of a job not yet finished, e.g. `sent_at IS NULL AND failed_at IS NULL`. */
  pending: string;
  /** The columns a claim returns. */
  returning: string;
}

/**
 * Leases up to `limit` due jobs, oldest due first, counting the attempt: `next_attempt_at` moves
 * `leaseMs` ahead, so a job whose process dies is due again then. SKIP LOCKED: concurrent claims
 * (any replica) never take the same job. A job is retried later by setting `next_attempt_at`.
 */
export function leaseDue<Row extends object>(db: Queryable, jobs: JobTable, limit: number, leaseMs: number): Promise<Row[]> {
  return queryRows<Row>(
    db,
    `UPDATE ${jobs.table} SET attempts = attempts + 1, next_attempt_at = now() + $2::bigint * interval '1 millisecond'
      WHERE id IN (SELECT id FROM ${jobs.table} WHERE ${jobs.pending} AND next_attempt_at <= now()
                    ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
      RETURNING ${jobs.returning}`,
    [limit, leaseMs],
  );
}
