import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';

/** NOTIFY channel on which new deliveries wake the workers of every dispatcher process. */
export const DELIVERIES_CHANNEL = 'webhooks_deliveries';

/** A delivery leased to this process for one attempt. */
export interface ClaimedDelivery {
  id: string;
  account_id: string;
  event_id: string;
  event_kind: string;
  body: Buffer;
  /** Attempts completed before this one. */
  attempts: number;
  url: string;
  secret_sealed: Buffer;
  claim_token: string;
}

export interface ClaimOptions {
  limit: number;
  maxInFlightPerEndpoint: number;
  leaseMs: number;
  token: string;
}

export interface CompletedAttempt {
  deliveryId: string;
  accountId: string;
  claimToken: string;
  outcome: 'delivered' | 'retry' | 'failed';
  /** With `retry`: the wait from now before the next attempt. */
  retryInMs: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
}

/** Due deliveries looked at per claim, before the per-endpoint cap picks among them. */
const CLAIM_SCAN = 500;

/** Deliveries and attempts of schema `webhooks`: the delivery outbox the workers drain. */
@Injectable()
export class DeliveriesRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /**
   * One delivery per active endpoint of the account that takes this kind, with the body bytes
   * every attempt will send; a repeated event adds nothing (unique endpoint + event). The endpoint
   * rows are share-locked, so a concurrent deletion either sees these deliveries (and cancels
   * them) or commits first (and none is made). Wakes the workers when it made any.
   */
  async insertForEvent(accountId: string, eventId: number, kind: string, body: Buffer): Promise<number> {
    const rows: Array<{ n: number }> = await this.db.query(
      `WITH inserted AS (
         INSERT INTO webhooks.deliveries (account_id, endpoint_id, event_id, event_kind, body)
         SELECT e.account_id, e.id, $2, $3, $4 FROM webhooks.endpoints e
         WHERE e.account_id = $1 AND e.deleted_at IS NULL AND (e.events IS NULL OR $3 = ANY (e.events))
         FOR SHARE
         ON CONFLICT (endpoint_id, event_id) DO NOTHING
         RETURNING 1
       )
       SELECT c.n, pg_notify($5, '') FROM (SELECT count(*)::int AS n FROM inserted) c WHERE c.n > 0`,
      [accountId, eventId, kind, body, DELIVERIES_CHANNEL],
    );
    return rows[0]?.n ?? 0;
  }

  /**
   * Leases up to `limit` due deliveries to the caller (FOR UPDATE SKIP LOCKED: concurrent workers
   * in any process take different rows). An endpoint already at its cap of leased deliveries is
   * passed over, so a slow receiver holds at most that many workers; expired leases (a worker
   * that died) are due again.
   */
  claim(options: ClaimOptions): Promise<ClaimedDelivery[]> {
    return this.db.query(
      `WITH busy AS (
         SELECT endpoint_id, count(*)::int AS n FROM webhooks.deliveries
         WHERE status = 'pending' AND locked_until > now()
         GROUP BY endpoint_id
       ), candidates AS (
         SELECT d.id, d.endpoint_id, d.next_attempt_at, coalesce(b.n, 0) AS busy
         FROM webhooks.deliveries d LEFT JOIN busy b ON b.endpoint_id = d.endpoint_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until <= now())
           AND coalesce(b.n, 0) < $2
         ORDER BY d.next_attempt_at, d.id
         LIMIT $5
       ), ranked AS (
         SELECT id FROM (
           SELECT id, next_attempt_at, busy + row_number() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, id) AS slot FROM candidates
         ) r
         WHERE slot <= $2
         ORDER BY next_attempt_at, id
         LIMIT $1
       ), locked AS (
         SELECT d.id FROM webhooks.deliveries d
         WHERE d.id IN (SELECT id FROM ranked) AND d.status = 'pending' AND (d.locked_until IS NULL OR d.locked_until <= now())
         FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhooks.deliveries d
         SET locked_until = now() + $3 * interval '1 millisecond', claim_token = $4
         FROM locked, webhooks.endpoints e
         WHERE d.id = locked.id AND e.id = d.endpoint_id
         RETURNING d.id, d.account_id, d.event_id, d.event_kind, d.body, d.attempts, e.url, e.secret_sealed, d.claim_token
       )
       SELECT * FROM claimed`,
      [options.limit, options.maxInFlightPerEndpoint, options.leaseMs, options.token, CLAIM_SCAN],
    );
  }

  /**
   * Records attempts and moves their deliveries on, in one statement. A delivery whose lease was
   * lost meanwhile (expired and taken by another worker, or cancelled by a deletion) keeps the
   * state the newer holder gives it; the attempt is recorded all the same.
   */
  async complete(attempts: CompletedAttempt[]): Promise<void> {
    const column = <T>(pick: (a: CompletedAttempt) => T): T[] => attempts.map(pick);
    await this.db.query(
      `WITH r AS (
         SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::uuid[], $4::text[], $5::bigint[], $6::timestamptz[], $7::int[], $8::int[], $9::text[], $10::text[])
           AS r (id, account_id, token, outcome, retry_ms, started_at, duration_ms, status_code, error, response_body)
       ), recorded AS (
         INSERT INTO webhooks.attempts (delivery_id, account_id, started_at, duration_ms, status_code, error, response_body)
         SELECT id, account_id, started_at, duration_ms, status_code, error, response_body FROM r
       )
       UPDATE webhooks.deliveries d SET
         attempts = d.attempts + 1,
         status = CASE WHEN r.outcome = 'retry' THEN 'pending' ELSE r.outcome END,
         next_attempt_at = CASE WHEN r.outcome = 'retry' THEN now() + r.retry_ms * interval '1 millisecond' ELSE d.next_attempt_at END,
         finished_at = CASE WHEN r.outcome = 'retry' THEN NULL ELSE now() END,
         locked_until = NULL,
         claim_token = NULL
       FROM r
       WHERE d.id = r.id AND d.claim_token = r.token AND d.status = 'pending'`,
      [
        column((a) => a.deliveryId),
        column((a) => a.accountId),
        column((a) => a.claimToken),
        column((a) => a.outcome),
        column((a) => a.retryInMs),
        column((a) => a.startedAt),
        column((a) => a.durationMs),
        column((a) => a.statusCode),
        column((a) => a.error),
        column((a) => a.responseBody),
      ],
    );
  }
}
