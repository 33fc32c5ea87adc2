import { Inject, Injectable } from '@nestjs/common';
import { Page, toPage } from '@svc/contracts';
import { ASYNC_COMMIT, Columns } from '@svc/persistence';
import { DataSource } from 'typeorm';
import type { Attempts, Deliveries, Endpoints, ErasedContacts } from '../schema.generated';
import { execute, prepared, queryOne, queryRows, sql } from '../statements';
import type { Statements } from '../statements.generated';

/** NOTIFY channel on which new deliveries wake the workers of every dispatcher process. */
export const DELIVERIES_CHANNEL = 'webhooks_deliveries';

/**
 * A delivery with what an attempt of it needs, as the lease statements return it: `attempts` are those
 * completed before this one; `single_attempt` a resend by hand (a failure ends it, no retries);
 * `previous_secret_sealed` the endpoint's previous secret during a rotation's overlap (PREVIOUS_SECRET),
 * which still signs X-SVC-Signature.
 */
type DeliveryLeaseRow = Columns<
  Deliveries,
  'id' | 'account_id' | 'endpoint_id' | 'event_id' | 'event_kind' | 'body' | 'attempts' | 'single_attempt' | 'claim_token' | 'traceparent'
> &
  Columns<Endpoints, 'url' | 'secret_sealed'> & { previous_secret_sealed: Buffer | null };

/** A delivery leased to this process for one attempt (DeliveryLeaseRow with its lease's token). */
export type ClaimedDelivery = DeliveryLeaseRow & { claim_token: string };

/** The endpoint's previous secret while its overlap lasts (a column list item over endpoints `e`). */
const PREVIOUS_SECRET = `CASE WHEN e.previous_expires_at > now() THEN e.previous_secret_sealed END AS previous_secret_sealed`;

export interface Claim {
  deliveries: ClaimedDelivery[];
  /** Due deliveries remain that this claim did not take. */
  leftBehind: boolean;
}

export interface LeaseOptions {
  maxInFlightPerEndpoint: number;
  /** Leased deliveries of one account at once, over all its endpoints. */
  maxInFlightPerAccount: number;
  leaseMs: number;
  /** Identifies the holder of the lease when its attempt is recorded. */
  token: string;
}

export interface ClaimOptions extends LeaseOptions {
  limit: number;
}

/** Deliveries leased as they are made (`insertForEvents`): at most `room` of them. */
export interface InsertLease extends LeaseOptions {
  room: number;
}

/** A recorded event to make deliveries of (`insertForEvents`). */
export interface NewEvent {
  accountId: string;
  /** The event's feed id. */
  eventId: number;
  kind: string;
  /** The bytes every attempt sends. */
  body: Buffer;
  /** The customer the event is about, and the body to send instead once they are erased. */
  erasure?: { svcId: number; body: Buffer };
  /** The trace the event was recorded in: each attempt of its deliveries is a span of it. */
  traceparent?: string | null;
}

/** Customers of one account (svc_ids). */
export interface AccountContacts {
  accountId: string;
  svcIds: number[];
}

export interface InsertedDeliveries {
  inserted: number;
  /** The inserted deliveries leased to the caller. */
  leased: ClaimedDelivery[];
}

/** An attempt as the API lists it (`at`: when it started). */
export type AttemptRecord = Columns<Attempts, 'status_code' | 'error' | 'duration_ms'> & { at: Attempts['started_at'] };

/** A delivery as the API lists it; `next_attempt_at` only while it is pending (a CASE). */
export type DeliveryRecord = Columns<Deliveries, 'id' | 'event_id' | 'event_kind' | 'status' | 'created_at'> & {
  status: 'pending' | 'delivered' | 'failed';
  next_attempt_at: string | null;
  attempts: AttemptRecord[];
};

/** A page of an endpoint's deliveries: after delivery id `after`, `limit` at the most, optionally of one status. */
export interface DeliveriesPageQuery {
  after: number;
  limit: number;
  status?: string;
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

/**
 * The lease bookkeeping commits without waiting for the WAL flush (ASYNC_COMMIT): a lease or a
 * result lost in a crash of PostgreSQL itself means a delivery is sent again after its lease, which
 * at-least-once delivery allows. Making deliveries stays synchronous: a message is acked after it.
 */
const ASYNC_COMMIT_CTE = `async_commit AS (${ASYNC_COMMIT})`;

/**
 * The claim's statement, whose CTE `candidates` (made by `candidates`, beside `pending_endpoints`: every
 * endpoint with pending deliveries, a loose index scan) holds the endpoints it looks at for due rows,
 * and whose column `walked` says how many endpoints `pending_endpoints` held when it was read (else null).
 */
const claimText = (candidates: string, walked: string): string => `WITH RECURSIVE ${ASYNC_COMMIT_CTE}, pending_endpoints AS (
         (SELECT endpoint_id FROM webhooks.deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.endpoint_id FROM webhooks.deliveries d WHERE d.status = 'pending' AND d.endpoint_id > p.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
         FROM pending_endpoints p WHERE p.endpoint_id IS NOT NULL
       ), ${candidates}, busy AS (
         SELECT endpoint_id, account_id, count(*)::int AS n FROM webhooks.deliveries
         WHERE status = 'pending' AND locked_until > now()
         GROUP BY endpoint_id, account_id
       ), busy_accounts AS (
         SELECT account_id, sum(n)::int AS n FROM busy GROUP BY account_id
       ), open AS (
         SELECT p.endpoint_id, e.account_id, least($2 - coalesce(b.n, 0), $5 - coalesce(a.n, 0)) AS room,
                $5 - coalesce(a.n, 0) AS account_room, oldest.next_attempt_at
         FROM candidates p JOIN webhooks.endpoints e ON e.id = p.endpoint_id
         LEFT JOIN busy b ON b.endpoint_id = p.endpoint_id
         LEFT JOIN busy_accounts a ON a.account_id = e.account_id
         CROSS JOIN LATERAL (
           SELECT d.next_attempt_at FROM webhooks.deliveries d
           WHERE d.endpoint_id = p.endpoint_id AND d.status = 'pending' AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until <= now())
           ORDER BY d.next_attempt_at, d.id LIMIT 1
         ) oldest
         WHERE coalesce(b.n, 0) < $2 AND coalesce(a.n, 0) < $5
         ORDER BY oldest.next_attempt_at LIMIT $1
       ), open_accounts AS (
         SELECT DISTINCT account_id, account_room FROM open
       ), ranked AS (
         SELECT due.id FROM open_accounts a CROSS JOIN LATERAL (
           SELECT due.id, due.next_attempt_at FROM open o CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at FROM webhooks.deliveries d
             WHERE d.endpoint_id = o.endpoint_id AND d.status = 'pending' AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until <= now())
             ORDER BY d.next_attempt_at, d.id LIMIT least(o.room, $1)
           ) due
           WHERE o.account_id = a.account_id
           ORDER BY due.next_attempt_at, due.id LIMIT least(a.account_room, $1)
         ) due
         ORDER BY due.next_attempt_at, due.id LIMIT $1
       ), locked AS (
         SELECT d.id FROM webhooks.deliveries d
         WHERE d.id IN (SELECT id FROM ranked) AND d.status = 'pending' AND (d.locked_until IS NULL OR d.locked_until <= now())
         FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhooks.deliveries d
         SET locked_until = now() + $3 * interval '1 millisecond', claim_token = $4
         FROM locked, webhooks.endpoints e
         WHERE d.id = locked.id AND e.id = d.endpoint_id
         RETURNING d.id, d.account_id, d.endpoint_id, d.event_id, d.event_kind, d.body, d.attempts, d.single_attempt, e.url, e.secret_sealed, ${PREVIOUS_SECRET}, d.claim_token,
                   d.traceparent
       )
       SELECT claimed.*, EXISTS (
         SELECT 1 FROM webhooks.deliveries d
         WHERE d.status = 'pending' AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until <= now())
           AND d.id NOT IN (SELECT id FROM locked)
       ) AS left_behind,
       ${walked} AS walked
       FROM async_commit LEFT JOIN claimed ON true`;

/**
 * The claim that walks every endpoint with pending deliveries and probes each for its oldest due row:
 * cheap with few such endpoints, however long one's backlog.
 */
const CLAIM_WALKING_ENDPOINTS = prepared('webhooks_claim')`${claimText(
  'candidates AS (SELECT endpoint_id FROM pending_endpoints WHERE endpoint_id IS NOT NULL)',
  '(SELECT count(*)::int FROM candidates)',
)}`;

/**
 * Due deliveries the claim from the due index reads first. While fewer are due, their endpoints are
 * every endpoint with due deliveries; with as many, a backlog may hide other endpoints behind its rows,
 * and it walks every endpoint with pending deliveries instead.
 */
const DUE_SAMPLE = 256;

/**
 * The claim that takes its candidates from the due index first: cheap while little is due, however
 * many endpoints have deliveries waiting for a retry later (bench:volume, "delivery claim": 17 ms →
 * 2 ms with 1,000 of them), and a few hundred rows dearer than the walk on a backlog.
 */
const CLAIM_FROM_DUE = prepared('webhooks_claim_from_due')`${claimText(
  `due_sample AS (
         SELECT endpoint_id FROM webhooks.deliveries
         WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until <= now())
         ORDER BY next_attempt_at, id LIMIT ${DUE_SAMPLE}
       ), candidates AS (
         SELECT DISTINCT endpoint_id FROM due_sample WHERE (SELECT count(*) FROM due_sample) < ${DUE_SAMPLE}
         UNION ALL
         SELECT endpoint_id FROM pending_endpoints
         WHERE endpoint_id IS NOT NULL AND (SELECT count(*) FROM due_sample) >= ${DUE_SAMPLE}
       )`,
  `CASE WHEN (SELECT count(*) FROM due_sample) >= ${DUE_SAMPLE}
         THEN (SELECT count(*)::int FROM pending_endpoints WHERE endpoint_id IS NOT NULL) END`,
)}`;

/**
 * Endpoints with pending deliveries up to which a claim walks them all: past it the next claim reads
 * the due index first, until one that falls back to the walk finds no more than this.
 */
const WALK_AT_MOST = 64;

/** Deliveries and attempts of schema `webhooks`: the delivery outbox the workers drain. */
@Injectable()
export class DeliveriesRepository {
  /** How the next claim finds its candidates: what the last claim that walked the endpoints saw. */
  private walk: 'endpoints' | 'due' = 'endpoints';

  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** How the next claim finds its candidate endpoints (`endpoints`: walking them; `due`: from the due index first). */
  get claimWalk(): 'endpoints' | 'due' {
    return this.walk;
  }

  /**
   * For each event, one delivery per active endpoint of its account that takes its kind, with the
   * body bytes every attempt will send; a repeated event adds nothing (unique endpoint + event).
   * One statement for the whole batch. The endpoint rows are share-locked, so a concurrent deletion
   * either sees these deliveries (and cancels them) or commits first (and none is made).
   *
   * An event whose customer is erased already gets the erased body (`NewEvent.erasure`), found by
   * a join, not EXISTS: with the join PostgreSQL keeps one generic plan for this prepared statement
   * instead of planning it at every call.
   *
   * With `lease`, up to `lease.room` deliveries are leased to the caller in the same statement
   * (each endpoint and each account up to its cap of leased deliveries, counting those of this
   * batch) and returned
   * with what an attempt needs, so that its process sends them at once. With `notify`, the
   * deliveries not leased wake the workers of every process (NOTIFY on commit). A process that
   * delivers does not notify: PostgreSQL serializes the commits of all notifying transactions (a
   * database-wide lock held through the WAL flush), and under load that queue is what makes
   * deliveries late; its own worker claims what it could not lease as soon as it has room, and the
   * other processes' poll finds the rest.
   */
  async insertForEvents(events: readonly NewEvent[], options: { lease?: InsertLease; notify: boolean }): Promise<InsertedDeliveries> {
    const { lease, notify } = options;
    const rows = await queryRows<DeliveryLeaseRow>(
      this.db,
      prepared('webhooks_insert_deliveries')`WITH input AS (
         SELECT u.account_id, u.event_id, u.kind, u.svc_id, u.traceparent, u.ord, CASE WHEN x.svc_id IS NULL THEN u.body ELSE u.erased_body END AS body
         FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::bytea[], $12::bigint[], $13::bytea[], $14::text[])
              WITH ORDINALITY AS u (account_id, event_id, kind, body, svc_id, erased_body, traceparent, ord)
         LEFT JOIN webhooks.erased_contacts x ON x.account_id = u.account_id AND x.svc_id = u.svc_id
       ), matching AS (
         SELECT e.id AS endpoint_id, e.account_id, e.status = 'enabled' AS enabled, i.event_id, i.kind, i.body, i.svc_id, i.traceparent, i.ord
         FROM input i JOIN webhooks.endpoints e
           ON e.account_id = i.account_id AND e.deleted_at IS NULL AND (e.events IS NULL OR i.kind = ANY (e.events))
         FOR SHARE OF e
       ), account_busy AS (
         SELECT d.account_id, count(*) AS n FROM webhooks.deliveries d
         WHERE $6::uuid IS NOT NULL AND d.account_id IN (SELECT account_id FROM input) AND d.status = 'pending' AND d.locked_until > now()
         GROUP BY d.account_id
       ), endpoint_capped AS (
         SELECT m.*, $6::uuid IS NOT NULL AND m.enabled AND (
                  SELECT count(*) FROM webhooks.deliveries d
                  WHERE d.endpoint_id = m.endpoint_id AND d.status = 'pending' AND d.locked_until > now()
                ) + row_number() OVER (PARTITION BY m.endpoint_id ORDER BY m.ord) <= $7 AS endpoint_open
         FROM matching m
       ), capped AS (
         SELECT c.*, c.endpoint_open AND coalesce((SELECT b.n FROM account_busy b WHERE b.account_id = c.account_id), 0)
                  + count(*) FILTER (WHERE c.endpoint_open) OVER (PARTITION BY c.account_id ORDER BY c.ord, c.endpoint_id) <= $11 AS open
         FROM endpoint_capped c
       ), targets AS (
         SELECT c.*, c.open AND count(*) FILTER (WHERE c.open) OVER (ORDER BY c.ord, c.endpoint_id) <= $9 AS leased FROM capped c
       ), inserted AS (
         INSERT INTO webhooks.deliveries (account_id, endpoint_id, event_id, event_kind, body, contact_svc_id, status, finished_at, locked_until, claim_token, traceparent)
         SELECT t.account_id, t.endpoint_id, t.event_id, t.kind, t.body, t.svc_id,
                CASE WHEN t.enabled THEN 'pending' ELSE 'failed' END, CASE WHEN t.enabled THEN NULL ELSE now() END,
                CASE WHEN t.leased THEN now() + $8 * interval '1 millisecond' END,
                CASE WHEN t.leased THEN $6::uuid END, t.traceparent
         FROM targets t
         ON CONFLICT (endpoint_id, event_id) DO NOTHING
         RETURNING id, account_id, endpoint_id, event_id, event_kind, body, attempts, single_attempt, status, claim_token, traceparent
       )
       SELECT i.*, e.url, e.secret_sealed, ${PREVIOUS_SECRET},
              CASE WHEN i.claim_token IS NULL AND i.status = 'pending' AND $10 THEN pg_notify($5, '') END AS notified
       FROM inserted i JOIN webhooks.endpoints e ON e.id = i.endpoint_id`,
      [
        events.map((e) => e.accountId),
        events.map((e) => e.eventId),
        events.map((e) => e.kind),
        events.map((e) => e.body),
        DELIVERIES_CHANNEL,
        lease?.token ?? null,
        lease?.maxInFlightPerEndpoint ?? 0,
        lease?.leaseMs ?? 0,
        lease?.room ?? 0,
        notify,
        lease?.maxInFlightPerAccount ?? 0,
        events.map((e) => e.erasure?.svcId ?? null),
        events.map((e) => e.erasure?.body ?? null),
        events.map((e) => e.traceparent ?? null),
      ],
    );
    return { inserted: rows.length, leased: rows.filter((row): row is ClaimedDelivery => row.claim_token !== null) };
  }

  /**
   * Leases up to `limit` due deliveries to the caller (FOR UPDATE SKIP LOCKED: concurrent workers
   * in any process take different rows), oldest due first. Its candidates are the endpoints with due
   * deliveries (CLAIM_WALKING_ENDPOINTS, CLAIM_FROM_DUE). It takes from each candidate with room its
   * oldest due rows, so
   * an endpoint at its cap of leased deliveries costs nothing however long its backlog: a slow
   * receiver holds at most that many workers and never delays the others. The same holds for an
   * account at its cap (over all its endpoints): ten slow endpoints of one account cannot take
   * every worker, and another account's deliveries still go out at once. Expired leases (a worker
   * that died) are due again. Also says whether due deliveries were left behind (by the limit, a
   * cap or another worker's lock), so that the caller knows to claim again as room frees up.
   */
  async claim(options: ClaimOptions): Promise<Claim> {
    type Row = ClaimedDelivery & { left_behind: boolean; walked: number | null };
    const params: Statements['webhooks_claim'] & Statements['webhooks_claim_from_due'] = [
      options.limit,
      options.maxInFlightPerEndpoint,
      options.leaseMs,
      options.token,
      options.maxInFlightPerAccount,
    ];
    const rows =
      this.walk === 'due'
        ? await queryRows<Row>(this.db, CLAIM_FROM_DUE, params)
        : await queryRows<Row>(this.db, CLAIM_WALKING_ENDPOINTS, params);
    // Walked every endpoint with pending deliveries: the next claim reads the due index first when they were many.
    const walked = rows[0]?.walked ?? null;
    if (walked !== null) this.walk = walked > WALK_AT_MOST ? 'due' : 'endpoints';
    return { deliveries: rows.filter((row) => row.id !== null), leftBehind: rows[0]?.left_behind ?? false };
  }

  /**
   * Records attempts and moves their deliveries on, in one statement. A delivery whose lease was
   * lost meanwhile (expired and taken by another worker, or cancelled by a deletion) keeps the
   * state the newer holder gives it; the attempt is recorded all the same.
   */
  async complete(attempts: CompletedAttempt[]): Promise<void> {
    const column = <T>(pick: (a: CompletedAttempt) => T): T[] => attempts.map(pick);
    await queryRows(
      this.db,
      prepared('webhooks_complete')`WITH ${ASYNC_COMMIT_CTE}, r AS (
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
       FROM r, async_commit
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

  /**
   * A page of the endpoint's deliveries (not cancelled ones) after delivery id `after`, oldest first,
   * each with its attempts; `more` when there are further ones now.
   */
  async page(endpointId: string, query: DeliveriesPageQuery): Promise<Page<'deliveries', DeliveryRecord, number>> {
    const rows = await queryRows<Omit<DeliveryRecord, 'attempts'>>(
      this.db,
      sql('webhooks_deliveries_page')`
        SELECT id, event_id, event_kind, status, CASE WHEN status = 'pending' THEN next_attempt_at END AS next_attempt_at, created_at
       FROM webhooks.deliveries
       WHERE endpoint_id = $1 AND id > $2 AND status <> 'cancelled' AND ($3::text IS NULL OR status = $3)
       ORDER BY id LIMIT $4`,
      [endpointId, query.after, query.status ?? null, query.limit + 1],
    );
    return toPage('deliveries', rows, {
      limit: query.limit,
      after: query.after,
      cursor: (row) => Number(row.id),
      items: (page) => this.withAttempts(page),
    });
  }

  /** The deliveries with their attempts, oldest first. */
  private async withAttempts(page: Array<Omit<DeliveryRecord, 'attempts'>>): Promise<DeliveryRecord[]> {
    const attempts: Array<AttemptRecord & Columns<Attempts, 'delivery_id'>> = page.length
      ? await queryRows<AttemptRecord & Columns<Attempts, 'delivery_id'>>(
          this.db,
          sql('webhooks_deliveries_with_attempts')`
            SELECT delivery_id, started_at AS at, status_code, error, duration_ms FROM webhooks.attempts WHERE delivery_id = ANY($1::bigint[]) ORDER BY id`,
          [page.map((r) => r.id)],
        )
      : [];
    const byDelivery = new Map<string, AttemptRecord[]>();
    for (const { delivery_id, ...attempt } of attempts) byDelivery.set(delivery_id, [...(byDelivery.get(delivery_id) ?? []), attempt]);
    return page.map((r) => ({ ...r, attempts: byDelivery.get(r.id) ?? [] }));
  }

  /**
   * Makes one more attempt of the endpoint's delivery due now, with the same event id and body, and
   * wakes the workers. A finished one gets that single attempt (`single_attempt`); a pending one
   * keeps its retries. Undefined when the delivery is not the endpoint's (or was cancelled).
   */
  async resend(endpointId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    const row = await queryOne<Columns<Deliveries, 'id'>>(
      this.db,
      sql('webhooks_deliveries_resend')`WITH resent AS (
         UPDATE webhooks.deliveries SET single_attempt = status <> 'pending', status = 'pending', next_attempt_at = now(), finished_at = NULL
         WHERE id = $1 AND endpoint_id = $2 AND status <> 'cancelled'
         RETURNING id
       )
       SELECT id, pg_notify($3, '') IS NULL AS notified FROM resent`,
      [deliveryId, endpointId, DELIVERIES_CHANNEL],
    );
    if (!row) return undefined;
    return (await this.page(endpointId, { after: Number(deliveryId) - 1, limit: 1 })).deliveries[0];
  }

  /**
   * Queues again every failed delivery of the endpoint made since `since`, one attempt each, due in
   * event order (one microsecond apart, so that claims take them in that order). Returns how many.
   */
  async recover(endpointId: string, since: string): Promise<number> {
    const rows = await queryRows<Columns<Deliveries, 'id'>>(
      this.db,
      sql('webhooks_deliveries_recover')`WITH chosen AS (
         SELECT id, row_number() OVER (ORDER BY event_id, id) AS n FROM webhooks.deliveries
         WHERE endpoint_id = $1 AND status = 'failed' AND created_at >= $2::timestamptz
       ), queued AS (
         UPDATE webhooks.deliveries d SET single_attempt = true, status = 'pending', finished_at = NULL,
           next_attempt_at = now() + c.n * interval '1 microsecond'
         FROM chosen c WHERE d.id = c.id
         RETURNING d.id
       )
       SELECT id, pg_notify($3, '') IS NULL AS notified FROM queued`,
      [endpointId, since, DELIVERIES_CHANNEL],
    );
    return rows.length;
  }

  /** Records that the account's customer is erased (svc_id only); idempotent. Commits on its own, before any blanking. */
  async recordErasure(accountId: string, svcId: number): Promise<void> {
    await execute(
      this.db,
      sql('webhooks_deliveries_record_erasure')`
        INSERT INTO webhooks.erased_contacts (account_id, svc_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [accountId, svcId],
    );
  }

  /** Of the given customers, those recorded as erased, grouped by account. */
  async erasedAmong(contacts: readonly AccountContacts[]): Promise<AccountContacts[]> {
    const pairs = contacts.flatMap((c) => c.svcIds.map((svcId) => [c.accountId, svcId] as const));
    if (pairs.length === 0) return [];
    const rows = await queryRows<Columns<ErasedContacts, 'account_id'> & { svc_ids: string[] }>(
      this.db,
      sql('webhooks_deliveries_erased_among')`SELECT x.account_id, array_agg(x.svc_id) AS svc_ids FROM webhooks.erased_contacts x
       WHERE (x.account_id, x.svc_id) IN (SELECT * FROM unnest($1::uuid[], $2::bigint[]))
       GROUP BY x.account_id`,
      [pairs.map(([accountId]) => accountId), pairs.map(([, svcId]) => svcId)],
    );
    return rows.map((r) => ({ accountId: r.account_id, svcIds: r.svc_ids.map(Number) }));
  }

  /**
   * Rewrites the body of every delivery of these customers (pending, retrying, finished and kept)
   * with `erase(body)`, in one transaction; returns how many changed. The rows are locked, so an
   * attempt recorded meanwhile waits; an attempt already in flight sent the old body, its retries
   * send the new one.
   */
  async rewriteBodiesOf(contacts: AccountContacts, erase: (body: Buffer) => Buffer): Promise<number> {
    return this.db.transaction(async (tx) => {
      const rows = await queryRows<Columns<Deliveries, 'id' | 'body'>>(
        tx,
        sql('webhooks_deliveries_rewrite_bodies_of')`
          SELECT id, body FROM webhooks.deliveries WHERE account_id = $1 AND contact_svc_id = ANY($2::bigint[]) ORDER BY id FOR UPDATE`,
        [contacts.accountId, contacts.svcIds],
      );
      const changed = rows.map((r) => ({ id: r.id, body: erase(r.body) })).filter((r, i) => !r.body.equals(rows[i]!.body));
      if (changed.length === 0) return 0;
      await execute(
        tx,
        sql('webhooks_deliveries_rewrite_bodies_of_2')`
          UPDATE webhooks.deliveries d SET body = u.body FROM unnest($1::bigint[], $2::bytea[]) u (id, body) WHERE d.id = u.id`,
        [changed.map((r) => r.id), changed.map((r) => r.body)],
      );
      return changed.length;
    });
  }

  /**
   * Removes finished deliveries (delivered, failed, cancelled) older than `days` with their
   * attempts, at most `batch` at a time, and deleted endpoints that have nothing left.
   * Returns the number of deliveries removed.
   */
  async prune(days: number, batch: number): Promise<number> {
    const [{ n }] = await queryRows<{ n: number }>(
      this.db,
      sql('webhooks_deliveries_prune')`WITH old AS (
         SELECT id FROM webhooks.deliveries
         WHERE status <> 'pending' AND finished_at < now() - $1 * interval '1 day'
         ORDER BY finished_at LIMIT $2
       ), attempts AS (
         DELETE FROM webhooks.attempts WHERE delivery_id IN (SELECT id FROM old)
       ), deliveries AS (
         DELETE FROM webhooks.deliveries WHERE id IN (SELECT id FROM old) RETURNING 1
       )
       SELECT count(*)::int AS n FROM deliveries`,
      [days, batch],
    );
    await execute(
      this.db,
      sql('webhooks_deliveries_prune_2')`DELETE FROM webhooks.endpoints e
       WHERE e.deleted_at < now() - $1 * interval '1 day' AND NOT EXISTS (SELECT 1 FROM webhooks.deliveries d WHERE d.endpoint_id = e.id)`,
      [days],
    );
    return n;
  }
}
