import { Injectable } from '@nestjs/common';
import { ChatCitation, ConversationChannel, ConversationStatus, InboxMessage, MessageAuthor } from '@svc/contracts';
import { Columns } from '@svc/persistence';
import { DataSource } from 'typeorm';
import type { Conversations, Messages } from '../schema.generated';
import { queryRows, sql } from '../statements';

/** A conversation as the inbox lists it (INBOX_SELECT, ids read ::float8), before its contact is looked up. */
export type InboxRow = Columns<Conversations, 'channel' | 'status' | 'lang' | 'created_at' | 'updated_at'> & {
  id: number;
  channel: ConversationChannel;
  status: ConversationStatus;
  customer_svc_id: number | null;
  needs_human: boolean;
  /** The last message's, other than the system's (null: none). */
  last_id: Messages['id'] | null;
  last_text: Messages['text'] | null;
  last_author: MessageAuthor | null;
  last_at: string | null;
  /** `<microseconds of updated_at>.<id>`: the inbox's cursor and the inbox stream's event id. */
  cursor: string;
};

/** A change the inbox stream reports (the id read ::float8). */
export type InboxChange = Columns<Conversations, 'last_message_id' | 'updated_at'> & { id: number; cursor: string };

export interface InboxFilter {
  needsHuman?: boolean;
  channel?: ConversationChannel;
  /** A cursor: conversations whose last activity is older than it (newest first). */
  after?: string;
  limit: number;
}

const CURSOR_SQL = `(floor(extract(epoch FROM c.updated_at) * 1000000)::bigint)::text || '.' || c.id::text`;
/** The instant of a cursor's first part (exact to the microsecond). */
const cursorInstant = (param: string) => `('epoch'::timestamptz + ${param}::bigint * interval '1 microsecond')`;

/**
 * `needs_human`: a person was asked for (status not `open`) and the latest message of the
 * customer or the team is the customer's (the team has not answered it yet).
 */
const INBOX_SELECT = `
  SELECT c.id::float8 AS id, c.channel, c.status, c.lang, c.customer_svc_id::float8 AS customer_svc_id,
         (c.status <> 'open' AND coalesce(lh.author, 'customer') <> 'team') AS needs_human,
         lm.id AS last_id, lm.text AS last_text, lm.author AS last_author, lm.at AS last_at,
         c.created_at, c.updated_at, ${CURSOR_SQL} AS cursor
    FROM chat.conversations c
    LEFT JOIN LATERAL (
      SELECT m.author FROM chat.messages m WHERE m.conversation_id = c.id AND m.author IN ('customer', 'team') ORDER BY m.id DESC LIMIT 1
    ) lh ON true
    LEFT JOIN LATERAL (
      SELECT m.id, m.text, m.author, m.at FROM chat.messages m WHERE m.conversation_id = c.id AND m.author <> 'system' ORDER BY m.id DESC LIMIT 1
    ) lm ON true`;

/** The inbox's SQL over schema `chat` (conversations with at least one message), every query scoped by account. */
@Injectable()
export class InboxRepository {
  constructor(private readonly db: DataSource) {}

  /** Newest activity first, `limit + 1` rows at the most (the one past the page tells that there are more). */
  async list(accountId: string, filter: InboxFilter): Promise<InboxRow[]> {
    const [micros, id] = filter.after ? filter.after.split('.') : [null, null];
    return queryRows<InboxRow>(
      this.db,
      sql('chat_inbox_list')`${INBOX_SELECT}
        WHERE c.account_id = $1 AND c.last_message_id > 0
          AND ($2::text IS NULL OR c.channel = $2)
          AND ($3::boolean IS NULL OR (c.status <> 'open' AND coalesce(lh.author, 'customer') <> 'team') = $3)
          AND ($4::bigint IS NULL OR (c.updated_at, c.id) < (${cursorInstant('$4')}, $5::bigint))
        ORDER BY c.updated_at DESC, c.id DESC
        LIMIT $6`,
      [accountId, filter.channel ?? null, filter.needsHuman ?? null, micros, id, filter.limit + 1],
    );
  }

  async get(accountId: string, id: number): Promise<InboxRow | undefined> {
    const rows = await queryRows<InboxRow>(this.db, sql('chat_inbox_get')`${INBOX_SELECT} WHERE c.account_id = $1 AND c.id = $2`, [
      accountId,
      id,
    ]);
    return rows[0];
  }

  /** Every message of the conversation, oldest first. */
  async messages(accountId: string, conversationId: number): Promise<InboxMessage[]> {
    const rows = await queryRows<
      Omit<Columns<Messages, 'id' | 'text' | 'author' | 'at' | 'citation'>, 'citation'> & {
        author: MessageAuthor;
        citation: ChatCitation | null;
      }
    >(
      this.db,
      sql('chat_inbox_messages')`
        SELECT id, text, author, at, citation FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 ORDER BY id`,
      [accountId, conversationId],
    );
    return rows.map(({ citation, ...message }) => ({ ...message, cited_piece: citation }));
  }

  /**
   * Conversations whose last activity is at or after `sinceMicros` (oldest change first). The
   * stream reads with an overlap, because `updated_at` is a transaction's start and it may commit
   * after a later one: the caller drops what it already reported.
   */
  async changes(accountId: string, sinceMicros: bigint, limit: number): Promise<InboxChange[]> {
    return queryRows<InboxChange>(
      this.db,
      sql('chat_inbox_changes')`SELECT c.id::float8 AS id, c.last_message_id, c.updated_at, ${CURSOR_SQL} AS cursor
         FROM chat.conversations c
        WHERE c.account_id = $1 AND c.last_message_id > 0 AND c.updated_at >= ${cursorInstant('$2')}
        ORDER BY c.updated_at, c.id
        LIMIT $3`,
      [accountId, sinceMicros.toString(), limit],
    );
  }
}
