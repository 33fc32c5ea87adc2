import { Inject, Injectable } from '@nestjs/common';
import { EventKind, WebhookDisabledReason, WebhookStatus } from '@svc/contracts';
import { Columns } from '@svc/persistence';
import { DataSource } from 'typeorm';
import type { Endpoints } from '../schema.generated';
import { execute, queryOne, queryRows, sql } from '../statements';

/** COLUMNS: the events, status and reason are held to the contract's values. */
export type EndpointRow = Columns<Endpoints, 'id' | 'url' | 'events' | 'status' | 'disabled_reason' | 'created_at'> & {
  events: EventKind[] | null;
  status: WebhookStatus;
  disabled_reason: WebhookDisabledReason | null;
};

/** What an attempt outside the queue (a test send) needs; the previous secret only while its overlap lasts (a CASE). */
export type EndpointSecrets = EndpointRow & Columns<Endpoints, 'secret_sealed'> & { previous_secret_sealed: Buffer | null };

export interface EndpointChanges {
  url?: string;
  /** `null`: every kind. */
  events?: EventKind[] | null;
  status?: WebhookStatus;
}

/** The columns of an endpoint as the API shows it. */
const COLUMNS = 'id, url, events, status, disabled_reason, created_at';

/**
 * Turning an endpoint off: its pending deliveries are recorded as failed (not attempted while it is
 * off; `recover` sends them). Runs over the endpoints `turned_off` (ids) of the same statement.
 */
const FAIL_PENDING = `UPDATE webhooks.deliveries SET status = 'failed', finished_at = now(), locked_until = NULL, claim_token = NULL
  WHERE endpoint_id IN (SELECT id FROM turned_off) AND status = 'pending'`;

export interface NewEndpoint {
  url: string;
  events: EventKind[] | null;
  secretSealed: Buffer;
}

/** Namespace of the per-account advisory lock that serialises registrations (first key of the two-key form). */
const REGISTRATION_LOCK = 0x77_68_6b_01;

/** Endpoints of schema `webhooks`. Every query is scoped by account; deleted endpoints keep their row. */
@Injectable()
export class EndpointsRepository {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /**
   * Inserts the endpoint unless the account already has `max`. Registrations of one account wait
   * for each other (advisory lock), so concurrent calls cannot pass the limit together.
   */
  createWithinLimit(accountId: string, endpoint: NewEndpoint, max: number): Promise<EndpointRow | undefined> {
    return this.db.transaction(async (m) => {
      await execute(m, sql('webhooks_endpoints_create_within_limit')`SELECT pg_advisory_xact_lock($1, hashtext($2))`, [
        REGISTRATION_LOCK,
        accountId,
      ]);
      const [{ n }] = await queryRows<{ n: number }>(
        m,
        sql('webhooks_endpoints_create_within_limit_2')`
          SELECT count(*)::int AS n FROM webhooks.endpoints WHERE account_id = $1 AND deleted_at IS NULL`,
        [accountId],
      );
      if (n >= max) return undefined;
      const [row] = await queryRows<EndpointRow>(
        m,
        sql('webhooks_endpoints_create_within_limit_3')`
          INSERT INTO webhooks.endpoints (account_id, url, events, secret_sealed) VALUES ($1, $2, $3, $4)
         RETURNING ${COLUMNS}`,
        [accountId, endpoint.url, endpoint.events, endpoint.secretSealed],
      );
      return row;
    });
  }

  list(accountId: string): Promise<EndpointRow[]> {
    return queryRows<EndpointRow>(
      this.db,
      sql('webhooks_endpoints_list')`SELECT ${COLUMNS} FROM webhooks.endpoints WHERE account_id = $1 AND deleted_at IS NULL ORDER BY id`,
      [accountId],
    );
  }

  /** The account's endpoint with its sealed secrets (the previous one only while its overlap lasts). */
  async find(accountId: string, id: string): Promise<EndpointSecrets | undefined> {
    return queryOne<EndpointSecrets>(
      this.db,
      sql('webhooks_endpoints_find')`
        SELECT ${COLUMNS}, secret_sealed, CASE WHEN previous_expires_at > now() THEN previous_secret_sealed END AS previous_secret_sealed
       FROM webhooks.endpoints WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL`,
      [id, accountId],
    );
  }

  /**
   * Applies the changes the caller sent; undefined when it is not the account's. Disabling fails
   * its pending deliveries in the same statement; enabling clears the reason. The status's time is
   * kept unless it changes (the failing window counts from it).
   */
  async update(accountId: string, id: string, changes: EndpointChanges): Promise<EndpointRow | undefined> {
    return queryOne<EndpointRow>(
      this.db,
      sql('webhooks_endpoints_update')`WITH changed AS (
         UPDATE webhooks.endpoints e SET
           url = CASE WHEN $3::boolean THEN $4 ELSE e.url END,
           events = CASE WHEN $5::boolean THEN $6::text[] ELSE e.events END,
           status = coalesce($7, e.status),
           disabled_reason = CASE WHEN $7 IS NULL OR $7 = e.status THEN e.disabled_reason WHEN $7 = 'disabled' THEN 'manual' END,
           status_changed_at = CASE WHEN $7 IS NULL OR $7 = e.status THEN e.status_changed_at ELSE now() END
         FROM (SELECT id, status AS old_status FROM webhooks.endpoints WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL FOR UPDATE) old
         WHERE e.id = old.id
         RETURNING e.${COLUMNS.split(', ').join(', e.')}, old.old_status
       ), turned_off AS (
         SELECT id FROM changed WHERE status = 'disabled' AND old_status = 'enabled'
       ), failed AS (${FAIL_PENDING})
       SELECT ${COLUMNS} FROM changed`,
      [
        id,
        accountId,
        changes.url !== undefined,
        changes.url ?? null,
        changes.events !== undefined,
        changes.events ?? null,
        changes.status ?? null,
      ],
    );
  }

  /**
   * Seals in a new secret; the current one becomes the previous one until `overlapMs` from now (a
   * previous one still in its overlap is dropped). Returns when the previous one expires, or
   * undefined when the endpoint is not the account's.
   */
  async rotateSecret(accountId: string, id: string, secretSealed: Buffer, overlapMs: number): Promise<string | undefined> {
    const row = await queryOne<Columns<Endpoints, 'previous_expires_at'> & { previous_expires_at: string }>(
      this.db,
      sql('webhooks_endpoints_rotate_secret')`WITH rotated AS (
         UPDATE webhooks.endpoints SET previous_secret_sealed = secret_sealed, secret_sealed = $3, previous_expires_at = now() + $4 * interval '1 millisecond'
         WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL
         RETURNING previous_expires_at
       )
       SELECT previous_expires_at FROM rotated`,
      [id, accountId, secretSealed, overlapMs],
    );
    return row?.previous_expires_at;
  }

  /**
   * Disables (reason `failing`) every enabled endpoint whose attempts have all failed for `windowMs`:
   * its first failed attempt after both its last successful attempt and the time it was (re)enabled
   * is older than the window. Its pending deliveries become failed (see FAIL_PENDING). Returns the
   * endpoints disabled.
   */
  async disableFailing(windowMs: number): Promise<Array<Columns<Endpoints, 'id' | 'account_id'>>> {
    return queryRows<Columns<Endpoints, 'id' | 'account_id'>>(
      this.db,
      sql('webhooks_endpoints_disable_failing')`WITH state AS (
         SELECT e.id, greatest(e.status_changed_at, (
                  SELECT max(a.started_at) FROM webhooks.deliveries d JOIN webhooks.attempts a ON a.delivery_id = d.id
                  WHERE d.endpoint_id = e.id AND a.error IS NULL
                )) AS failing_since_after
         FROM webhooks.endpoints e
         WHERE e.status = 'enabled' AND e.deleted_at IS NULL AND e.status_changed_at < now() - $1 * interval '1 millisecond'
       ), candidates AS (
         SELECT s.id FROM state s WHERE EXISTS (
           SELECT 1 FROM webhooks.deliveries d JOIN webhooks.attempts a ON a.delivery_id = d.id
           WHERE d.endpoint_id = s.id AND a.error IS NOT NULL AND a.started_at > s.failing_since_after AND a.started_at < now() - $1 * interval '1 millisecond'
         )
       ), turned_off AS (
         UPDATE webhooks.endpoints e SET status = 'disabled', disabled_reason = 'failing', status_changed_at = now()
         FROM candidates c WHERE e.id = c.id AND e.status = 'enabled'
         RETURNING e.id, e.account_id
       ), failed AS (${FAIL_PENDING})
       SELECT id, account_id FROM turned_off`,
      [windowMs],
    );
  }

  /**
   * Marks the endpoint deleted, erases its sealed secret (nothing will be signed with it again) and
   * cancels its pending deliveries, together. False when it is not the account's.
   */
  delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const deleted = await queryRows<Columns<Endpoints, 'id'>>(
        m,
        sql('webhooks_endpoints_delete')`WITH deleted AS (
           UPDATE webhooks.endpoints SET deleted_at = now(), secret_sealed = ''::bytea, previous_secret_sealed = NULL WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL RETURNING id
         )
         SELECT id FROM deleted`,
        [id, accountId],
      );
      if (deleted.length === 0) return false;
      await execute(
        m,
        sql('webhooks_endpoints_delete_2')`
          UPDATE webhooks.deliveries SET status = 'cancelled', finished_at = now(), locked_until = NULL, claim_token = NULL
         WHERE endpoint_id = $1 AND status = 'pending'`,
        [id],
      );
      return true;
    });
  }
}
