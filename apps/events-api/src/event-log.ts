import { Inject, Injectable } from '@nestjs/common';
import { DomainMessage, EventKind, PublicEvent } from '@svc/contracts';
import { EVENTS_EXCHANGE, outboxChannel } from '@svc/messaging';
import { DataSource } from 'typeorm';
import { EVENTS_SCHEMA } from './migrations';

/** timestamptz as the contract writes it: UTC, six fraction digits, `+00:00`. */
const AT = `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;

/**
 * One statement, so one transaction: take the account's next id (the upsert's row lock makes the
 * account's appends commit one after another, so ids become visible in increasing order), append
 * the event unless its producer id is known (a redelivery), and put the recorded event in the
 * outbox for the dispatcher. A redelivery costs a gap in the ids, never a duplicate.
 */
const APPEND = `
  WITH seq AS (
    INSERT INTO events.account_sequences AS s (account_id, last_id) VALUES ($1, 1)
    ON CONFLICT (account_id) DO UPDATE SET last_id = s.last_id + 1
    RETURNING last_id
  ), ev AS (
    INSERT INTO events.events (account_id, id, event_id, kind, at, data)
    SELECT $1, seq.last_id, $2, $3, $4::timestamptz, $5::jsonb FROM seq
    ON CONFLICT (event_id) DO NOTHING
    RETURNING id, ${AT} AS at
  ), outbox AS (
    INSERT INTO events.outbox (id, exchange, routing_key, body)
    SELECT $2, '${EVENTS_EXCHANGE}', $3, jsonb_build_object(
      'account_id', $1::text,
      'event_id', $2::text,
      'event', jsonb_build_object('id', ev.id, 'event', $3::text, 'at', ev.at, 'data', $5::jsonb))
    FROM ev
    RETURNING 1
  )
  SELECT ev.id, pg_notify('${outboxChannel(EVENTS_SCHEMA)}', '') FROM ev, outbox`;

export interface EventsPage {
  events: PublicEvent[];
  next_after: number;
  more: boolean;
}

@Injectable()
export class EventLog {
  constructor(@Inject(DataSource) private readonly db: DataSource) {}

  /** Appends a public event; returns its id, or null when it was already recorded. */
  async append(message: DomainMessage<EventKind>): Promise<number | null> {
    const rows: Array<{ id: string }> = await this.db.query(APPEND, [message.account_id, message.id, message.kind, message.at, JSON.stringify(message.data)]);
    return rows.length > 0 ? Number(rows[0]!.id) : null;
  }

  /**
   * A page of the feed as the JSON text of an `EventsPage`. PostgreSQL writes each event's JSON, so
   * a full page of 200 is never parsed and re-serialized here.
   */
  async page(accountId: string, after: number, limit: number): Promise<string> {
    const rows: Array<{ id: string; json: string }> = await this.db.query(
      `SELECT id, json_build_object('id', id, 'event', kind, 'at', ${AT}, 'data', data)::text AS json
       FROM events.events WHERE account_id = $1 AND id > $2 ORDER BY id LIMIT $3`,
      [accountId, after, limit + 1],
    );
    const events = rows.slice(0, limit);
    const nextAfter = events.length > 0 ? Number(events[events.length - 1]!.id) : after;
    return `{"events":[${events.map((r) => r.json).join(',')}],"next_after":${nextAfter},"more":${rows.length > limit}}`;
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

  /** Removes events recorded more than `days` ago, in batches; returns how many. */
  async prune(days: number): Promise<number> {
    let total = 0;
    for (;;) {
      const [, count]: [unknown, number] = await this.db.query(
        `DELETE FROM events.events WHERE ctid IN (
           SELECT ctid FROM events.events WHERE recorded_at < now() - make_interval(days => $1) LIMIT 5000)`,
        [days],
      );
      total += count;
      if (count < 5000) return total;
    }
  }
}
