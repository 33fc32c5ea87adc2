import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Sql } from '@svc/persistence';
import { execute, queryRows, sql } from '../statements';
import type { Statements } from '../statements.generated';

/** A count of one day (`YYYY-MM-DD`, UTC), optionally under a key (channel, author, reason, purpose…). */
export interface DayCount {
  day: string;
  key: string;
  n: number;
}

export interface ContactActivity {
  eventId: string;
  accountId: string;
  kind: 'contact.confirmed' | 'consent.granted' | 'consent.withdrawn';
  /** The confirmed channel (`email`, `phone`) or the consent's purpose. */
  detail: string;
  at: string;
}

/** `$2` .. `$3`: UTC dates, both included (the session's time zone is UTC). */
const IN_RANGE = (column: string) => `${column} >= $2::date AND ${column} < $3::date + 1`;
const DAY = (column: string) => `to_char(${column}, 'YYYY-MM-DD')`;

/**
 * The analytics' SQL over schema `chat`, every query scoped by account: counts per UTC day of
 * conversations, messages, hand-overs, bookings and contact activity, the median time to the first
 * team reply, the most cited pieces and the most frequent unanswered questions.
 */
@Injectable()
export class AnalyticsRepository {
  constructor(private readonly db: DataSource) {}

  async recordActivity(activity: ContactActivity): Promise<void> {
    await execute(
      this.db,
      sql('chat_analytics_record_activity')`
        INSERT INTO chat.contact_activity (event_id, account_id, kind, detail, at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (event_id) DO NOTHING`,
      [activity.eventId, activity.accountId, activity.kind, activity.detail, activity.at],
    );
  }

  /** Conversations by channel, counted on the day of their first message. */
  conversationsByChannel(accountId: string, from: string, to: string): Promise<DayCount[]> {
    return this.counts(
      sql('chat_analytics_conversations_by_channel')`SELECT ${DAY('m.at')} AS day, c.channel AS key, count(*)::int AS n
         FROM chat.conversations c JOIN chat.messages m ON m.conversation_id = c.id AND m.id = 1
        WHERE c.account_id = $1 AND ${IN_RANGE('m.at')} GROUP BY 1, 2`,
      accountId,
      from,
      to,
    );
  }

  /** Messages by author (customer = received; assistant, team = sent). */
  messagesByAuthor(accountId: string, from: string, to: string): Promise<DayCount[]> {
    return this.counts(
      sql('chat_analytics_messages_by_author')`SELECT ${DAY('m.at')} AS day, m.author AS key, count(*)::int AS n
         FROM chat.messages m WHERE m.account_id = $1 AND m.author IN ('customer', 'assistant', 'team') AND ${IN_RANGE('m.at')} GROUP BY 1, 2`,
      accountId,
      from,
      to,
    );
  }

  /**
   * Conversations (on the day of their first message) that the assistant answered and no person
   * was involved in: no hand-over, no team reply.
   */
  closedByAssistant(accountId: string, from: string, to: string): Promise<DayCount[]> {
    return this.counts(
      sql('chat_analytics_closed_by_assistant')`SELECT ${DAY('m.at')} AS day, '' AS key, count(*)::int AS n
         FROM chat.conversations c JOIN chat.messages m ON m.conversation_id = c.id AND m.id = 1
        WHERE c.account_id = $1 AND ${IN_RANGE('m.at')}
          AND EXISTS (SELECT 1 FROM chat.messages a WHERE a.conversation_id = c.id AND a.author = 'assistant')
          AND NOT EXISTS (SELECT 1 FROM chat.messages t WHERE t.conversation_id = c.id AND t.author = 'team')
          AND NOT EXISTS (SELECT 1 FROM chat.handovers h WHERE h.conversation_id = c.id)
        GROUP BY 1`,
      accountId,
      from,
      to,
    );
  }

  handoversByReason(accountId: string, from: string, to: string): Promise<DayCount[]> {
    return this.counts(
      sql('chat_analytics_handovers_by_reason')`
        SELECT ${DAY('h.at')} AS day, h.reason AS key, count(*)::int AS n FROM chat.handovers h WHERE h.account_id = $1 AND ${IN_RANGE('h.at')} GROUP BY 1, 2`,
      accountId,
      from,
      to,
    );
  }

  /**
   * Per day of the request for a person (`customer_asked`, `assistant_unsure`): the median seconds
   * to the first team reply after it, over the requests that got one (`n` is a number of seconds).
   */
  async medianFirstTeamReply(accountId: string, from: string, to: string): Promise<Array<{ day: string; seconds: number }>> {
    const rows = await queryRows<{ day: string; seconds: number }>(
      this.db,
      sql('chat_analytics_median_first_team_reply')`
        SELECT ${DAY('h.at')} AS day, percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM r.at - h.at))::float8 AS seconds
         FROM chat.handovers h
         JOIN LATERAL (SELECT m.at FROM chat.messages m WHERE m.conversation_id = h.conversation_id AND m.author = 'team' AND m.at >= h.at ORDER BY m.id LIMIT 1) r ON true
        WHERE h.account_id = $1 AND h.reason IN ('customer_asked', 'assistant_unsure') AND ${IN_RANGE('h.at')}
        GROUP BY 1`,
      [accountId, from, to],
    );
    return rows;
  }

  /** Confirmations and consent changes, by `<kind>:<detail>`. */
  contactActivity(accountId: string, from: string, to: string): Promise<DayCount[]> {
    return this.counts(
      sql('chat_analytics_contact_activity')`
        SELECT ${DAY('a.at')} AS day, a.kind || ':' || a.detail AS key, count(*)::int AS n FROM chat.contact_activity a WHERE a.account_id = $1 AND ${IN_RANGE('a.at')} GROUP BY 1, 2`,
      accountId,
      from,
      to,
    );
  }

  /** Bookings made (`requested`: every booking starts so) and confirmed, each on the day it happened. */
  bookings(accountId: string, from: string, to: string): Promise<DayCount[]> {
    return this.counts(
      sql('chat_analytics_bookings')`
        SELECT ${DAY('b.created_at')} AS day, 'requested' AS key, count(*)::int AS n FROM chat.bookings b WHERE b.account_id = $1 AND ${IN_RANGE('b.created_at')} GROUP BY 1
       UNION ALL
       SELECT ${DAY('b.confirmed_at')}, 'confirmed', count(*)::int FROM chat.bookings b WHERE b.account_id = $1 AND b.confirmed_at IS NOT NULL AND ${IN_RANGE('b.confirmed_at')} GROUP BY 1`,
      accountId,
      from,
      to,
    );
  }

  /** The pieces the assistant cited most in the range (the heading it was last cited under). */
  async topCitedPieces(
    accountId: string,
    from: string,
    to: string,
    limit = 10,
  ): Promise<Array<{ external_ref: string; heading: string; count: number }>> {
    return queryRows<{ external_ref: string; heading: string; count: number }>(
      this.db,
      sql('chat_analytics_top_cited_pieces')`
        SELECT m.citation->>'external_ref' AS external_ref, (array_agg(m.citation->>'heading' ORDER BY m.at DESC))[1] AS heading, count(*)::int AS count
         FROM chat.messages m
        WHERE m.account_id = $1 AND m.author = 'assistant' AND m.citation IS NOT NULL AND ${IN_RANGE('m.at')}
        GROUP BY 1 ORDER BY count DESC, external_ref LIMIT $4`,
      [accountId, from, to, limit],
    );
  }

  /**
   * The customer questions the assistant found no good match for, most frequent first: grouped
   * without case and with runs of spaces as one, shown as last asked.
   */
  async topUnansweredQuestions(
    accountId: string,
    from: string,
    to: string,
    limit = 10,
  ): Promise<Array<{ question: string; count: number }>> {
    return queryRows<{ question: string; count: number }>(
      this.db,
      sql('chat_analytics_top_unanswered_questions')`SELECT (array_agg(q.text ORDER BY a.at DESC))[1] AS question, count(*)::int AS count
         FROM chat.messages a
         JOIN LATERAL (
           SELECT m.text FROM chat.messages m WHERE m.conversation_id = a.conversation_id AND m.author = 'customer' AND m.id < a.id ORDER BY m.id DESC LIMIT 1
         ) q ON true
        WHERE a.account_id = $1 AND a.author = 'assistant' AND a.citation IS NULL AND a.offers_person AND ${IN_RANGE('a.at')}
          AND btrim(q.text) <> ''
        GROUP BY lower(regexp_replace(btrim(q.text), '\\s+', ' ', 'g'))
        ORDER BY count DESC, question LIMIT $4`,
      [accountId, from, to, limit],
    );
  }

  private counts(
    statement: Sql<Statements['chat_analytics_messages_by_author']>,
    accountId: string,
    from: string,
    to: string,
  ): Promise<DayCount[]> {
    return queryRows<DayCount>(this.db, statement, [accountId, from, to]);
  }
}
