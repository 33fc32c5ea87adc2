import { Inject, Injectable } from '@nestjs/common';
import { DomainMessage, EventKind, PublicEvent } from '@svc/contracts';
import { EVENTS_EXCHANGE, OutboxRelay } from '@svc/messaging';
import { DataSource } from 'typeorm';

/** timestamptz as the contract writes it: UTC, six fraction digits, `+00:00`. */
const AT = `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;

/**
 * Appends a batch of one account's events in one statement, so one transaction: skip events whose
 * producer id is known (redeliveries), take the next ids of the account (the upsert's row lock
 * makes the account's appends commit one after another, so ids become visible in increasing
 * order), append, and put each recorded event in the outbox for the dispatcher. A redelivery that
 * races its original costs a gap in the ids, never a duplicate. No NOTIFY: PostgreSQL serializes
 * the commits of every notifying transaction (a database-wide lock held through the WAL flush), and
 * the relay that publishes these rows runs in this process, woken directly after the commit.
 */
const APPEND = `
  WITH input AS (
    SELECT * FROM unnest($2::uuid[], $3::text[], $4::timestamptz[], $5::jsonb[]) WITH ORDINALITY AS t(event_id, kind, at, data, ord)
  ), fresh AS (
    SELECT i.*, row_number() OVER (ORDER BY i.ord) AS rn, count(*) OVER () AS n FROM input i
    WHERE NOT EXISTS (SELECT 1 FROM events.events e WHERE e.event_id = i.event_id)
  ), seq AS (
    INSERT INTO events.account_sequences AS s (account_id, last_id)
    SELECT $1, count(*) FROM fresh HAVING count(*) > 0
    ON CONFLICT (account_id) DO UPDATE SET last_id = s.last_id + EXCLUDED.last_id
    RETURNING last_id
  ), ev AS (
    INSERT INTO events.events (account_id, id, event_id, kind, at, data)
    SELECT $1, seq.last_id - f.n + f.rn, f.event_id, f.kind, f.at, f.data FROM fresh f, seq
    ON CONFLICT (event_id) DO NOTHING
    RETURNING id, event_id, kind, ${AT} AS at, data
  ), outbox AS (
    INSERT INTO events.outbox (id, exchange, routing_key, body)
    SELECT ev.event_id, '${EVENTS_EXCHANGE}', ev.kind, jsonb_build_object(
      'account_id', $1::text,
      'event_id', ev.event_id::text,
      'event', jsonb_build_object('id', ev.id, 'event', ev.kind, 'at', ev.at, 'data', ev.data))
    FROM ev
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM outbox)::int AS appended`;

export interface EventsPage {
  events: PublicEvent[];
  next_after: number;
  more: boolean;
}

@Injectable()
export class EventLog {
  constructor(
    @Inject(DataSource) private readonly db: DataSource,
    private readonly relay: OutboxRelay,
  ) {}

  /** Appends public events of one account, in the given order; returns how many were new. */
  async append(accountId: string, messages: ReadonlyArray<DomainMessage<EventKind>>): Promise<number> {
    const [row]: Array<{ appended: number }> = await this.db.query(APPEND, [
      accountId,
      messages.map((m) => m.id),
      messages.map((m) => m.kind),
      messages.map((m) => m.at),
      messages.map((m) => JSON.stringify(m.data)),
    ]);
    const appended = row?.appended ?? 0;
    if (appended > 0) this.relay.wake();
    return appended;
  }

  /**
   * A page of the feed as the JSON text of an `EventsPage`. PostgreSQL writes the events' JSON as
   * one string (only for the rows of the page), so a full page of 200 is neither parsed nor
   * re-serialized here.
   */
  async page(accountId: string, after: number, limit: number): Promise<string> {
    const [row]: Array<{ found: number; last_id: string | null; events: string }> = await this.db.query(
      `SELECT count(*)::int AS found,
              max(id) FILTER (WHERE n <= $3) AS last_id,
              coalesce(string_agg(json_build_object('id', id, 'event', kind, 'at', ${AT}, 'data', data)::text, ',' ORDER BY id)
                FILTER (WHERE n <= $3), '') AS events
       FROM (SELECT id, kind, at, data, row_number() OVER (ORDER BY id) AS n
             FROM events.events WHERE account_id = $1 AND id > $2 ORDER BY id LIMIT $3 + 1) page`,
      [accountId, after, limit],
    );
    const nextAfter = row?.last_id === null || row?.last_id === undefined ? after : Number(row.last_id);
    return `{"events":[${row?.events ?? ''}],"next_after":${nextAfter},"more":${(row?.found ?? 0) > limit}}`;
  }

  /** Erasure: the customer's name, email and phone leave every retained event of the account. */
  async eraseContact(accountId: string, svcId: number): Promise<number> {
    const [, count]: [unknown, number] = await this.db.query(
      `UPDATE events.events SET data = data
         || jsonb_build_object('contact', (data -> 'contact') || '{"name": "", "email": null, "phone": null}'::jsonb)
         || CASE WHEN data ? 'reach'
              THEN jsonb_build_object('reach', (data -> 'reach') || '{"email": "", "whatsapp": ""}'::jsonb)
              ELSE '{}'::jsonb END
       WHERE account_id = $1 AND data -> 'contact' ->> 'svc_id' = $2`,
      [accountId, String(svcId)],
    );
    return count;
  }

  /** Removes up to `batch` events recorded more than `days` ago (`PruneJob` calls it); returns how many. */
  async prune(days: number, batch: number): Promise<number> {
    const [, count]: [unknown, number] = await this.db.query(
      `DELETE FROM events.events WHERE ctid IN (
         SELECT ctid FROM events.events WHERE recorded_at < now() - make_interval(days => $1) LIMIT $2)`,
      [days, batch],
    );
    return count;
  }
}
