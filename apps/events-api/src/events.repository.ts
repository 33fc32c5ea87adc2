import { Inject, Injectable } from '@nestjs/common';
import { DomainMessage, eraseEventData, EventKind, eventContactSvcId, Page, PublicEvent, toPage } from '@svc/contracts';
import { EVENTS_EXCHANGE, Outbox, OutboxRelay } from '@svc/messaging';
import { MetricsService } from '@svc/platform';
import { Columns } from '@svc/persistence';
import type { Counter, Histogram } from 'prom-client';
import { DataSource } from 'typeorm';
import type { ErasedContacts, Events } from './schema.generated';
import { execute, queryRows, sql } from './statements';

/** timestamptz as the contract writes it: UTC, six fraction digits, `+00:00`. */
const AT = `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;

/** A `PublicEvent`'s JSON in the contract's field order, for the feed and the outbox. */
const eventJson = (row: string, at: string) => `json_build_object('id', ${row}.id, 'event', ${row}.kind, 'at', ${at}, 'data', ${row}.data)`;

/**
 * Appends one account's events in one statement: skips redeliveries, takes the account's next ids (its row
 * lock orders the commits), fills the outbox without NOTIFY (ADR 001) with each event's trace (`$8`); an erased customer's (`$6`)
 * go blanked (`$7`).
 */
const APPEND = sql('events_events_append')`
  WITH input AS (
    SELECT t.event_id, t.kind, t.at, t.ord,
           CASE WHEN EXISTS (SELECT 1 FROM events.erased_contacts x WHERE x.account_id = $1 AND x.svc_id = t.svc_id) THEN t.erased ELSE t.data END AS data
    , t.traceparent
    FROM unnest($2::uuid[], $3::text[], $4::timestamptz[], $5::jsonb[], $6::bigint[], $7::jsonb[], $8::text[])
         WITH ORDINALITY AS t(event_id, kind, at, data, svc_id, erased, traceparent, ord)
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
    INSERT INTO events.outbox (id, exchange, routing_key, body, traceparent)
    SELECT ev.event_id, '${EVENTS_EXCHANGE}', ev.kind, jsonb_build_object(
      'account_id', $1::text,
      'event_id', ev.event_id::text,
      'event', ${eventJson('ev', 'ev.at')}), t.traceparent
    FROM ev CROSS JOIN LATERAL (SELECT f.traceparent FROM fresh f WHERE f.event_id = ev.event_id LIMIT 1) t
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM outbox)::int AS appended`;

export type EventsPage = Page<'events', PublicEvent, number>;

/** A domain message to append, with the trace it was handled in (its recorded event is published as part of it). */
export type TracedMessage = DomainMessage<EventKind> & { traceparent?: string | null };

/** The SQL of schema `events`: the feed's appends, pages, erasure and pruning, and the outbox its relay publishes. */
@Injectable()
export class EventsRepository {
  private readonly appendedTotal?: Counter<string>;
  private readonly feedLag?: Histogram<string>;

  constructor(
    @Inject(DataSource) private readonly db: DataSource,
    private readonly relay: OutboxRelay,
    metrics?: MetricsService,
  ) {
    this.appendedTotal = metrics?.counter(
      'events_appended_total',
      'Events appended to the feed (redeliveries of an event already there are not counted).',
    );
    this.feedLag = metrics?.histogram(
      'events_feed_lag_seconds',
      "Time from a domain message's creation in its producer's transaction to its event being readable in the feed (outbox, relay, broker, append).",
    );
  }

  /** Appends one account's events in order; returns how many were new. Looks again after the commit for a racing erasure. */
  async append(accountId: string, messages: ReadonlyArray<TracedMessage>): Promise<number> {
    const svcIds = messages.map((m) => eventContactSvcId(m.data));
    const [row] = await queryRows<{ appended: number }>(this.db, APPEND, [
      accountId,
      messages.map((m) => m.id),
      messages.map((m) => m.kind),
      messages.map((m) => m.at),
      messages.map((m) => JSON.stringify(m.data)),
      svcIds,
      messages.map((m) => JSON.stringify(eraseEventData(m.data))),
      messages.map((m) => m.traceparent ?? null),
    ]);
    const appended = row?.appended ?? 0;
    if (appended > 0) {
      this.relay.wake();
      this.appendedTotal?.inc(appended);
      const now = Date.now();
      for (const message of messages) this.feedLag?.observe(Math.max(0, (now - Date.parse(message.at)) / 1000));
    }
    // Also after a redelivery that appended nothing: the look after an earlier attempt's commit may have failed.
    const erased = await this.erasedAmong(
      accountId,
      svcIds.filter((id): id is number => id !== null),
    );
    if (erased.length > 0) await this.blankContacts(accountId, erased);
    return appended;
  }

  /** The feed id the account's event with this producer UUID got, once it is recorded. */
  async idOf(accountId: string, eventUuid: string): Promise<number | undefined> {
    const [row] = await queryRows<Columns<Events, 'id'>>(
      this.db,
      sql('events_events_id_of')`SELECT id FROM events.events WHERE account_id = $1 AND event_id = $2`,
      [accountId, eventUuid],
    );
    return row ? Number(row.id) : undefined;
  }

  /** A feed page as `EventsPage` JSON text, written by PostgreSQL (never parsed or re-serialized here). */
  async page(accountId: string, after: number, limit: number): Promise<string> {
    const rows = await queryRows<Columns<Events, 'id'> & { event: string }>(
      this.db,
      sql('events_events_page')`SELECT id, ${eventJson('e', AT)}::text AS event
       FROM events.events e WHERE account_id = $1 AND id > $2 ORDER BY id LIMIT $3 + 1`,
      [accountId, after, limit],
    );
    const page = await toPage('events', rows, {
      limit,
      after,
      cursor: (row) => Number(row.id),
      items: (events) => events.map((row) => row.event),
    });
    return `{"events":[${page.events.join(',')}],"next_after":${page.next_after},"more":${page.more}}`;
  }

  /** Records the customer as erased (committed first), then blanks their retained and outbox events. Idempotent. */
  async eraseContact(accountId: string, svcId: number): Promise<number> {
    await execute(
      this.db,
      sql('events_events_erase_contact')`INSERT INTO events.erased_contacts (account_id, svc_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
      [accountId, svcId],
    );
    return this.blankContacts(accountId, [svcId]);
  }

  /** Of `svcIds`, those of customers erased in the account. */
  private async erasedAmong(accountId: string, svcIds: number[]): Promise<number[]> {
    if (svcIds.length === 0) return [];
    const rows = await queryRows<Columns<ErasedContacts, 'svc_id'>>(
      this.db,
      sql('events_events_erased_among')`SELECT svc_id FROM events.erased_contacts WHERE account_id = $1 AND svc_id = ANY($2::bigint[])`,
      [accountId, [...new Set(svcIds)]],
    );
    return rows.map((r) => Number(r.svc_id));
  }

  /** Blanks (`eraseEventData`) the retained and unpublished events of these customers; returns how many events changed. */
  private async blankContacts(accountId: string, svcIds: number[]): Promise<number> {
    const ids = svcIds.map(String);
    return this.db.transaction(async (tx) => {
      const events = await queryRows<Columns<Events, 'id' | 'data'>>(
        tx,
        sql('events_events_blank_contacts')`
          SELECT id, data FROM events.events WHERE account_id = $1 AND data -> 'contact' ->> 'svc_id' = ANY($2::text[]) ORDER BY id FOR UPDATE`,
        [accountId, ids],
      );
      const changed = blanked(
        events,
        (e) => e.data,
        (e, data) => ({ key: e.id, value: data }),
      );
      if (changed.length > 0) {
        await execute(
          tx,
          sql('events_events_blank_data')`UPDATE events.events e SET data = u.value FROM unnest($2::bigint[], $3::jsonb[]) u (key, value)
            WHERE e.account_id = $1 AND e.id = u.key`,
          [accountId, ...columnsOf(changed)],
        );
      }
      const waiting = await queryRows<Omit<Columns<Outbox, 'seq' | 'body'>, 'body'> & { body: { event: PublicEvent } }>(
        tx,
        sql('events_events_blank_contacts_2')`SELECT seq, body FROM events.outbox
         WHERE sent_at IS NULL AND body ->> 'account_id' = $1 AND body -> 'event' -> 'data' -> 'contact' ->> 'svc_id' = ANY($2::text[])
         ORDER BY seq FOR UPDATE`,
        [accountId, ids],
      );
      const unpublished = blanked(
        waiting,
        (r) => r.body.event.data,
        (r, data) => ({ key: r.seq, value: { ...r.body, event: { ...r.body.event, data } } }),
      );
      if (unpublished.length > 0) {
        await execute(
          tx,
          sql('events_outbox_blank_bodies')`
            UPDATE events.outbox o SET body = u.value FROM unnest($1::bigint[], $2::jsonb[]) u (key, value) WHERE o.seq = u.key`,
          columnsOf(unpublished),
        );
      }
      return changed.length;
    });
  }

  /** Removes up to `batch` events recorded more than `days` ago (`PruneJob` calls it); returns how many. */
  async prune(days: number, batch: number): Promise<number> {
    const count = await execute(
      this.db,
      sql('events_events_prune')`DELETE FROM events.events WHERE ctid IN (
         SELECT ctid FROM events.events WHERE recorded_at < now() - make_interval(days => $1) LIMIT $2)`,
      [days, batch],
    );
    return count;
  }
}

interface Replacement {
  key: string;
  value: unknown;
}

/** The rows whose data `eraseEventData` changes, as replacements (already blanked rows are left alone). */
function blanked<R>(rows: R[], dataOf: (row: R) => unknown, replace: (row: R, data: unknown) => Replacement): Replacement[] {
  return rows.flatMap((row) => {
    const data = dataOf(row);
    const erased = eraseEventData(data);
    return JSON.stringify(erased) === JSON.stringify(data) ? [] : [replace(row, erased)];
  });
}

/** The replacements' keys and JSON values, as two arrays (for `unnest`). */
function columnsOf(replacements: Replacement[]): [string[], string[]] {
  return [replacements.map((r) => r.key), replacements.map((r) => JSON.stringify(r.value))];
}
