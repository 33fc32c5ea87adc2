import { Inject, Injectable } from '@nestjs/common';
import { EventKind } from '@svc/contracts';
import { DataSource } from 'typeorm';

export interface EndpointRow {
  id: string;
  url: string;
  events: EventKind[] | null;
  created_at: string;
}

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
      await m.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [REGISTRATION_LOCK, accountId]);
      const [{ n }] = await m.query('SELECT count(*)::int AS n FROM webhooks.endpoints WHERE account_id = $1 AND deleted_at IS NULL', [accountId]);
      if (n >= max) return undefined;
      const [row] = await m.query(
        `INSERT INTO webhooks.endpoints (account_id, url, events, secret_sealed) VALUES ($1, $2, $3, $4)
         RETURNING id, url, events, created_at`,
        [accountId, endpoint.url, endpoint.events, endpoint.secretSealed],
      );
      return row as EndpointRow;
    });
  }

  list(accountId: string): Promise<EndpointRow[]> {
    return this.db.query('SELECT id, url, events, created_at FROM webhooks.endpoints WHERE account_id = $1 AND deleted_at IS NULL ORDER BY id', [accountId]);
  }

  /**
   * Marks the endpoint deleted, erases its sealed secret (nothing will be signed with it again) and
   * cancels its pending deliveries, together. False when it is not the account's.
   */
  delete(accountId: string, id: string): Promise<boolean> {
    return this.db.transaction(async (m) => {
      const deleted: unknown[] = await m.query(
        `WITH deleted AS (
           UPDATE webhooks.endpoints SET deleted_at = now(), secret_sealed = ''::bytea WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL RETURNING id
         )
         SELECT id FROM deleted`,
        [id, accountId],
      );
      if (deleted.length === 0) return false;
      await m.query(
        `UPDATE webhooks.deliveries SET status = 'cancelled', finished_at = now(), locked_until = NULL, claim_token = NULL
         WHERE endpoint_id = $1 AND status = 'pending'`,
        [id],
      );
      return true;
    });
  }
}
