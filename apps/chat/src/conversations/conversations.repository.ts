import { Injectable } from '@nestjs/common';
import {
  ChatChannel,
  ChatCitation,
  ChatMessage,
  ConversationStatus,
  DomainMessage,
  EventContact,
  EventReach,
  HandoverReason,
  HandoverState,
  MessageAuthor,
} from '@svc/contracts';
import { DOMAIN_EXCHANGE, enqueueDomainMessages, outboxChannel, outboxInsert } from '@svc/messaging';
import { ASYNC_COMMIT, Columns } from '@svc/persistence';
import { currentTraceparent } from '@svc/tracing';
import { DataSource, EntityManager } from 'typeorm';
import { CHAT_SCHEMA } from '../migrations';
import type { Conversations, Messages } from '../schema.generated';
import { execute, prepared, queryOne, queryRows, sql } from '../statements';

/** The NOTIFY channel that wakes the streams of a conversation (payload: its id, or `{"c": id, "m": message}` for a message that fits). */
export const CONVERSATION_CHANNEL = 'chat_conversation';
/** The NOTIFY channel that wakes an account's inbox streams (payload: the account id). Only a wake-up, like the one above. */
export const INBOX_CHANNEL = 'chat_inbox';

/**
 * CONVERSATION_COLUMNS: `id` and `customer_svc_id` are read ::float8 (numbers); the channel, status and
 * hand-over are held to the domain's values (the table's CHECK constraints), and `reach` (JSON) is the
 * EventReach the chat writes. `business_name` is the account's name when the conversation began
 * (confirmation emails name the business).
 */
export type ConversationRow = Omit<
  Columns<
    Conversations,
    | 'account_id'
    | 'channel'
    | 'lang'
    | 'customer_identified'
    | 'customer_name'
    | 'customer_email'
    | 'customer_phone'
    | 'status'
    | 'handover'
    | 'handover_reason'
    | 'reach'
    | 'business_name'
  >,
  'reach'
> & {
  id: number;
  customer_svc_id: number | null;
  channel: ChatChannel;
  status: ConversationStatus;
  handover: HandoverState;
  handover_reason: HandoverReason | null;
  reach: EventReach | null;
  /** The customer's messages of the last minute, where read with the row (a visitor's token). */
  recent_customer_messages?: number;
  /** The customer as the chat's model holds them (null: not held), where read with the row (a visitor's token). */
  customer?: EventContact | null;
  /** When its visitor token was issued, as PostgreSQL writes it, and how long ago (ms), where read with the row (a visitor's token). */
  token_issued_at?: string;
  token_age_ms?: number;
};

/** A conversation found by a token a session was given: `token_current` false when it is the one before the last rotation. */
export type SessionConversation = ConversationRow & { token_issued_at: string; token_age_ms: number; token_current: boolean };

/** What a stream shows of a conversation besides its messages. */
export type ConversationState = Pick<ConversationRow, 'status' | 'handover'>;

/** What a new message is: the id and time are the database's. */
export interface NewMessage {
  author: MessageAuthor;
  text: string;
  citation?: ChatCitation | null;
  offersPerson?: boolean;
  /** A customer message the assistant has to answer. */
  replyPending?: boolean;
  /** An assistant or team message of a WhatsApp conversation goes out as a text unless this is false (a template goes out as itself). */
  sendOnWhatsapp?: boolean;
  /** Its event, committed with it; the database fills in `data.message.id` and `data.message.at`. */
  event?: (message: ChatMessage) => DomainMessage;
}

/** What else must hold for a message to be added (see ADD_MESSAGE). */
interface AddCondition {
  customerMessagesPerMinute?: number;
  answers?: number;
}

/** The customer a conversation belongs to, as the chat keeps it (to greet them and offer their details back). */
export interface ConversationCustomer {
  svcId: number;
  identified: boolean;
  name: string;
  email: string | null;
  phone: string | null;
}

/** A customer message the assistant has to answer, claimed by this process for a while, with its conversation as it is now. */
export interface PendingReply {
  id: number;
  text: string;
  conversation: ConversationRow;
  /** Its answer's failed tries so far (absent: none, a message just written). */
  failures?: number;
}

/** The columns of a ConversationRow, of the table named `alias` when given. */
const conversationColumns = (alias?: string): string => {
  const column = (name: string): string => (alias ? `${alias}.${name}` : name);
  return [
    `${column('id')}::float8 AS id`,
    ...['account_id', 'channel', 'lang'].map(column),
    `${column('customer_svc_id')}::float8 AS customer_svc_id`,
    ...[
      'customer_identified',
      'customer_name',
      'customer_email',
      'customer_phone',
      'status',
      'handover',
      'handover_reason',
      'reach',
      'business_name',
    ].map(column),
  ].join(', ');
};
const CONVERSATION_COLUMNS = conversationColumns();
const MESSAGE_COLUMNS = 'id, author, text, at, citation, offers_person';

/*
 * The statements of every customer message and reply (a visitor's call, the assistant's answer, a
 * stream's read) are named prepared statements (`{ name, text }`), planned once per connection
 * instead of on each call (ADR 003).
 */

const STREAM_READ = prepared('chat_stream_read')`
  SELECT c.status, c.handover, c.token_issued_at::text AS token_issued_at, m.id, m.author, m.text, m.at, m.citation, m.offers_person
     FROM chat.conversations c
     LEFT JOIN LATERAL (
       SELECT ${MESSAGE_COLUMNS} FROM chat.messages
        WHERE account_id = c.account_id AND conversation_id = c.id AND id > $3 ORDER BY id LIMIT $4) m ON true
    WHERE c.account_id = $1 AND c.id = $2
    ORDER BY m.id`;
/** Customer messages counted by the per-conversation message limit: those of the last minute. */
const MESSAGE_WINDOW = `interval '1 minute'`;
const RECENT_CUSTOMER_MESSAGES = prepared('chat_recent_customer_messages')`
  SELECT count(*)::int AS count, coalesce(ceil(extract(epoch FROM min(t.at) + ${MESSAGE_WINDOW} - now()) * 1000), 0)::int AS retry_after_ms
     FROM chat.conversations c, unnest(c.recent_customer_at) AS t(at)
    WHERE c.account_id = $1 AND c.id = $2 AND t.at > now() - ${MESSAGE_WINDOW}`;
const LOCK = prepared('chat_lock')`SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE account_id = $1 AND id = $2 FOR UPDATE`;
/** A NOTIFY payload must stay under 8,000 bytes: a longer message wakes its streams with the id alone. */
const NOTE_BYTES = 7_900;
/** A timestamptz as the contract writes it (formatTimestamp of @svc/persistence). */
const CONTRACT_TIME = (column: string): string => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;
/**
 * Adds a message with the conversation's next id, in one round trip (docs/adr/012-one-statement-per-message.md):
 * - `$9` the customer's messages a minute: nothing is added past it (the count lives on the row, so
 *   concurrent sends are counted exactly under its row lock);
 * - `$10` the customer message this one answers: added only if it was still unanswered, and then the
 *   commit does not wait for its WAL flush (a crash that loses it leaves the question pending, and
 *   the sweep answers it anew);
 * - `$11`–`$14` its event, committed to the outbox with the message's id and time filled in (and `$17`, the
 *   trace it was written in), and its
 *   `contact` as the model of customers holds them now when that is newer than the one given (a
 *   reply written while contacts-api's write was applied carries it: read your writes, ADR 014);
 * - an assistant or team message of a WhatsApp conversation goes out through the Cloud API
 *   (chat.deliveries) unless `$8` is false;
 * - a message the assistant has to answer is leased (`$16` ms) to this process from birth.
 * The NOTIFYs wake the conversation's streams (with the message), the account's inbox and the outbox relay on commit.
 */
const ADD_MESSAGE = prepared('chat_add_message')`WITH finished AS (
     UPDATE chat.messages SET reply_pending = false, reply_lease_until = NULL
       FROM (${ASYNC_COMMIT}) AS async_commit
      WHERE $10::bigint IS NOT NULL AND account_id = $1 AND conversation_id = $2 AND id = $10 AND reply_pending
      RETURNING id
   ), next AS (
     UPDATE chat.conversations
        SET last_message_id = last_message_id + 1, updated_at = now(),
            recent_customer_at = CASE WHEN $3 = 'customer'
              THEN array_append(ARRAY(SELECT t FROM unnest(recent_customer_at) AS t WHERE t > now() - ${MESSAGE_WINDOW}), now())
              ELSE recent_customer_at END
      WHERE account_id = $1 AND id = $2
        AND ($10::bigint IS NULL OR EXISTS (SELECT FROM finished))
        AND ($9::int IS NULL OR (SELECT count(*) FROM unnest(recent_customer_at) AS t WHERE t > now() - ${MESSAGE_WINDOW}) < $9::int)
      RETURNING last_message_id, channel, whatsapp_from, status
   ), added AS (
     INSERT INTO chat.messages (conversation_id, id, account_id, author, text, citation, offers_person, reply_pending, reply_lease_until)
     SELECT $2, last_message_id, $1, $3, $4, $5::jsonb, $6, $7 AND next.status = 'open',
            CASE WHEN $7 AND next.status = 'open' THEN now() + $16::bigint * interval '1 millisecond' END
       FROM next
     RETURNING ${MESSAGE_COLUMNS}, reply_pending
   ), whatsapp AS (
     INSERT INTO chat.deliveries (account_id, kind, conversation_id, payload)
     SELECT $1, 'whatsapp', $2,
            jsonb_build_object('kind', 'whatsapp', 'phoneNumberId', n.phone_number_id, 'message', jsonb_build_object('to', next.whatsapp_from, 'type', 'text', 'text', $4::text))
       FROM next JOIN chat.whatsapp_numbers n ON n.account_id = $1
      WHERE $8 AND next.channel = 'whatsapp' AND next.whatsapp_from IS NOT NULL
   ), event AS (
     ${outboxInsert(CHAT_SCHEMA)}
     SELECT $11::uuid, $12, $13,
            jsonb_set(jsonb_set(CASE WHEN newer.contact IS NULL THEN $14::jsonb ELSE jsonb_set($14::jsonb, '{data,contact}', newer.contact) END,
              '{data,message,id}', to_jsonb(added.id)), '{data,message,at}', to_jsonb(${CONTRACT_TIME('added.at')})), $17
       FROM added LEFT JOIN chat.customers newer
         ON newer.account_id = $1 AND newer.svc_id = ($14::jsonb #>> '{data,contact,svc_id}')::bigint
        AND newer.contact IS NOT NULL AND newer.updated_at > ($14::jsonb #>> '{data,contact,updated_at}')::timestamptz
      WHERE $11::uuid IS NOT NULL
   )
   SELECT added.*, pg_notify('${CONVERSATION_CHANNEL}', CASE WHEN octet_length(note) <= ${NOTE_BYTES} THEN note ELSE $2::text END),
          pg_notify('${INBOX_CHANNEL}', $1::text), CASE WHEN $11::uuid IS NOT NULL THEN pg_notify($15, '') END
     FROM added, LATERAL (
       SELECT json_build_object('c', $2::bigint, 'm', json_build_object(
                'id', added.id, 'author', added.author, 'text', added.text, 'at', ${CONTRACT_TIME('added.at')},
                'citation', added.citation, 'offers_person', added.offers_person))::text AS note) AS n`;
/** The messages an UPDATE … RETURNING `claim` claimed, each with its conversation, in the same statement. */
const claiming = (claim: string): string => `WITH claimed AS (${claim})
     SELECT claimed.id AS message_id, claimed.text AS message_text, claimed.reply_failures AS message_failures, ${conversationColumns('c')}
       FROM claimed JOIN chat.conversations c ON c.account_id = claimed.account_id AND c.id = claimed.conversation_id`;
const CLAIM_STALE_REPLIES = prepared('chat_claim_stale_replies')`${claiming(
  `UPDATE chat.messages m SET reply_lease_until = now() + $2::bigint * interval '1 millisecond'
     FROM (SELECT conversation_id, id FROM chat.messages
            WHERE reply_pending AND at < now() - $1::bigint * interval '1 millisecond'
              AND (reply_lease_until IS NULL OR reply_lease_until < now())
            ORDER BY at LIMIT $3 FOR UPDATE SKIP LOCKED) due
    WHERE m.conversation_id = due.conversation_id AND m.id = due.id
    RETURNING m.conversation_id, m.id, m.account_id, m.text, m.reply_failures`,
)}`;
/** When the conversation's visitor token was issued, and how long ago (ms): tokens have a maximum lifetime. */
const TOKEN_TIMES = `c.token_issued_at::text AS token_issued_at, (extract(epoch FROM now() - c.token_issued_at) * 1000)::float8 AS token_age_ms`;
/**
 * A visitor's conversation, with how many messages the customer wrote in the last minute (a cheap
 * first look at the limit), its customer as the chat's model holds them and its token's age.
 */
const BY_TOKEN_HASH = prepared('chat_by_token_hash')`SELECT ${conversationColumns('c')},
          (SELECT count(*) FROM unnest(c.recent_customer_at) AS t WHERE t > now() - ${MESSAGE_WINDOW})::int AS recent_customer_messages,
          held.contact AS customer, ${TOKEN_TIMES}
     FROM chat.conversations c
     LEFT JOIN chat.customers held ON held.account_id = c.account_id AND held.svc_id = c.customer_svc_id
    WHERE c.token_hash = $1`;

/** MESSAGE_COLUMNS: the author and citation are held to the domain's values. */
type MessageRow = Omit<Columns<Messages, 'id' | 'author' | 'text' | 'at' | 'citation' | 'offers_person'>, 'citation'> &
  Pick<ChatMessage, 'author' | 'citation'>;

/** The message alone, as the API shows it (whatever else the row carried). */
export const toMessage = (row: ChatMessage): ChatMessage => ({
  id: row.id,
  author: row.author,
  text: row.text,
  at: row.at,
  citation: row.citation,
  offers_person: row.offers_person,
});

/** A message as added: `reply_pending` when the assistant has to answer it. */
export type AddedMessage = ChatMessage & { reply_pending: boolean };

/** The lease a process holds on a customer message it is answering; past it, the sweep answers it. */
export const REPLY_LEASE_MS = 30_000;

/** Runs ADD_MESSAGE; undefined when `condition` did not hold (or the conversation is gone). */
async function addMessage(
  db: DataSource | EntityManager,
  accountId: string,
  conversationId: number,
  message: NewMessage,
  condition: AddCondition,
): Promise<AddedMessage | undefined> {
  const toWhatsapp = (message.author === 'assistant' || message.author === 'team') && message.sendOnWhatsapp !== false;
  const citation = message.citation ?? null;
  const offersPerson = message.offersPerson ?? false;
  const event = message.event?.({ id: 0, author: message.author, text: message.text, at: '', citation, offers_person: offersPerson });
  const rows = await queryRows<MessageRow & Columns<Messages, 'reply_pending'>>(db, ADD_MESSAGE, [
    accountId,
    conversationId,
    message.author,
    message.text,
    citation ? JSON.stringify(citation) : null,
    offersPerson,
    message.replyPending ?? false,
    toWhatsapp,
    condition.customerMessagesPerMinute ?? null,
    condition.answers ?? null,
    event?.id ?? null,
    DOMAIN_EXCHANGE,
    event?.kind ?? null,
    event ? JSON.stringify(event) : null,
    outboxChannel(CHAT_SCHEMA),
    REPLY_LEASE_MS,
    event ? (currentTraceparent() ?? null) : null,
  ]);
  const row = rows[0];
  return row ? { ...toMessage(row), reply_pending: row.reply_pending } : undefined;
}

/** Reads, every one scoped by account. */
class ConversationReads {
  constructor(protected readonly db: DataSource | EntityManager) {}

  async get(accountId: string, id: number): Promise<ConversationRow | undefined> {
    return queryOne<ConversationRow>(
      this.db,
      sql('chat_conversations_get')`SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE account_id = $1 AND id = $2`,
      [accountId, id],
    );
  }

  /** Messages after `afterId`, oldest first. */
  async messages(accountId: string, conversationId: number, afterId = 0, limit = 500): Promise<ChatMessage[]> {
    const rows = await queryRows<MessageRow>(
      this.db,
      sql('chat_conversations_messages')`
        SELECT ${MESSAGE_COLUMNS} FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 AND id > $3 ORDER BY id LIMIT $4`,
      [accountId, conversationId, afterId, limit],
    );
    return rows.map(toMessage);
  }

  /**
   * What a stream shows after `afterId`, in one round trip: the messages (oldest first, at most
   * `limit`) and the conversation's status and hand-over; undefined when the conversation is gone.
   */
  async streamRead(
    accountId: string,
    conversationId: number,
    afterId: number,
    limit = 500,
  ): Promise<{ messages: ChatMessage[]; state: ConversationState; tokenIssuedAt: string } | undefined> {
    type StreamRow = ConversationState & { token_issued_at: string };
    const rows = await queryRows<StreamRow & Partial<MessageRow>>(this.db, STREAM_READ, [accountId, conversationId, afterId, limit]);
    const first = rows[0];
    if (!first) return undefined;
    const messages = rows.filter((row): row is StreamRow & MessageRow => row.id !== null && row.id !== undefined).map(toMessage);
    return { messages, state: { status: first.status, handover: first.handover }, tokenIssuedAt: first.token_issued_at };
  }

  /** The text of the customer's last message, or '' when they wrote nothing. */
  async lastCustomerText(accountId: string, conversationId: number): Promise<string> {
    const rows = await queryRows<Columns<Messages, 'text'>>(
      this.db,
      sql('chat_conversations_last_customer_text')`
        SELECT text FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 AND author = 'customer' ORDER BY id DESC LIMIT 1`,
      [accountId, conversationId],
    );
    return rows[0]?.text ?? '';
  }

  /** How many messages the customer wrote within the last minute, and in how long the oldest of them leaves it. */
  async recentCustomerMessages(accountId: string, conversationId: number): Promise<{ count: number; retryAfterMs: number }> {
    const rows = await queryRows<{ count: number; retry_after_ms: number }>(this.db, RECENT_CUSTOMER_MESSAGES, [accountId, conversationId]);
    return { count: rows[0]?.count ?? 0, retryAfterMs: rows[0]?.retry_after_ms ?? 0 };
  }

  /** The piece the assistant's last answer cited, or null (no answer yet, or it found nothing). */
  async lastCitation(accountId: string, conversationId: number): Promise<ChatCitation | null> {
    const rows = await queryRows<Omit<Columns<Messages, 'citation'>, 'citation'> & Pick<ChatMessage, 'citation'>>(
      this.db,
      sql('chat_conversations_last_citation')`
        SELECT citation FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 AND author = 'assistant' ORDER BY id DESC LIMIT 1`,
      [accountId, conversationId],
    );
    return rows[0]?.citation ?? null;
  }

  /** Whether the assistant's last answer found nothing and offered a person. */
  async lastAnswerOfferedPerson(accountId: string, conversationId: number): Promise<boolean> {
    const rows = await queryRows<Columns<Messages, 'offers_person'>>(
      this.db,
      sql('chat_conversations_last_answer_offered_person')`
        SELECT offers_person FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 AND author = 'assistant' ORDER BY id DESC LIMIT 1`,
      [accountId, conversationId],
    );
    return rows[0]?.offers_person ?? false;
  }
}

/** The writes of one transaction: a change, its messages and its events commit together. */
export class ConversationTransaction extends ConversationReads {
  constructor(db: EntityManager) {
    super(db);
  }

  /** The transaction itself, for the channels' rows that commit with a conversation's change. */
  get manager(): EntityManager {
    return this.db as EntityManager;
  }

  async lock(accountId: string, id: number): Promise<ConversationRow | undefined> {
    return queryOne<ConversationRow>(this.db, LOCK, [accountId, id]);
  }

  /** The web conversation whose visitor token is, or was until the last rotation, this one; locked. */
  async lockByToken(tokenHash: Buffer): Promise<SessionConversation | undefined> {
    return queryOne<SessionConversation>(
      this.db,
      sql('chat_conversations_lock_by_token')`SELECT ${conversationColumns('c')}, ${TOKEN_TIMES}, c.token_hash = $1 AS token_current
         FROM chat.conversations c
        WHERE (c.token_hash = $1 OR c.previous_token_hash = $1) AND c.channel = 'web'
        LIMIT 1 FOR UPDATE`,
      [tokenHash],
    );
  }

  /**
   * Gives a web conversation a new visitor token (`tokenHash`): the one it had works no more (its
   * open streams end at their next read, woken here) and is kept only as `previous_token_hash`.
   * With `customer`, the conversation becomes theirs unless it already has one. Undefined when it is
   * not a web conversation (a WhatsApp conversation has no visitor token).
   */
  async rotateToken(
    accountId: string,
    id: number,
    tokenHash: Buffer,
    customer?: ConversationCustomer,
  ): Promise<ConversationRow | undefined> {
    const row = await queryOne<ConversationRow>(
      this.db,
      sql('chat_conversations_rotate_token')`UPDATE chat.conversations
          SET previous_token_hash = token_hash, token_hash = $3, token_issued_at = clock_timestamp(), updated_at = now(),
              customer_svc_id = coalesce(customer_svc_id, $4), customer_identified = CASE WHEN customer_svc_id IS NULL AND $4::bigint IS NOT NULL THEN $5 ELSE customer_identified END,
              customer_name = CASE WHEN customer_svc_id IS NULL AND $4::bigint IS NOT NULL THEN $6 ELSE customer_name END,
              customer_email = CASE WHEN customer_svc_id IS NULL AND $4::bigint IS NOT NULL THEN $7 ELSE customer_email END,
              customer_phone = CASE WHEN customer_svc_id IS NULL AND $4::bigint IS NOT NULL THEN $8 ELSE customer_phone END
        WHERE account_id = $1 AND id = $2 AND channel = 'web'
        RETURNING ${CONVERSATION_COLUMNS}`,
      [
        accountId,
        id,
        tokenHash,
        customer?.svcId ?? null,
        customer?.identified ?? false,
        customer?.name ?? '',
        customer?.email ?? null,
        customer?.phone ?? null,
      ],
    );
    if (row)
      await execute(this.db, sql('chat_conversations_rotate_token_2')`SELECT pg_notify('${CONVERSATION_CHANNEL}', $1::text)`, [String(id)]);
    return row;
  }

  /** Appends a message (with its event) in this transaction; see ADD_MESSAGE. */
  async addMessage(accountId: string, conversationId: number, message: NewMessage): Promise<ChatMessage> {
    return toMessage((await addMessage(this.db, accountId, conversationId, message, {})) as AddedMessage);
  }

  /** A customer message, unless the customer already wrote `perMinute` in the last minute (then undefined). */
  addCustomerMessage(accountId: string, conversationId: number, message: NewMessage, perMinute: number): Promise<AddedMessage | undefined> {
    return addMessage(this.db, accountId, conversationId, message, { customerMessagesPerMinute: perMinute });
  }

  /** Moves the hand-over on (`dueInMs`: when the wait for a team reply runs out) and wakes the streams. */
  async setHandover(
    accountId: string,
    id: number,
    change: { status: ConversationStatus; handover: HandoverState; reason?: HandoverReason; dueInMs?: number; reach?: EventReach },
  ): Promise<void> {
    await execute(
      this.db,
      sql('chat_conversations_set_handover')`UPDATE chat.conversations
          SET status = $3, handover = $4, handover_reason = coalesce($5, handover_reason),
              handover_due_at = CASE WHEN $6::bigint IS NULL THEN NULL ELSE now() + $6::bigint * interval '1 millisecond' END,
              reach = coalesce($7::jsonb, reach), updated_at = now()
        WHERE account_id = $1 AND id = $2`,
      [
        accountId,
        id,
        change.status,
        change.handover,
        change.reason ?? null,
        change.dueInMs ?? null,
        change.reach ? JSON.stringify(change.reach) : null,
      ],
    );
    await execute(
      this.db,
      sql('chat_conversations_set_handover_2')`
        SELECT pg_notify('${CONVERSATION_CHANNEL}', $1::text), pg_notify('${INBOX_CHANNEL}', $2::text)`,
      [String(id), accountId],
    );
  }

  /** Records a hand-over as it happens (the analytics count them by reason and day). */
  async recordHandover(accountId: string, conversationId: number, reason: HandoverReason): Promise<void> {
    await execute(
      this.db,
      sql('chat_conversations_record_handover')`INSERT INTO chat.handovers (account_id, conversation_id, reason) VALUES ($1, $2, $3)`,
      [accountId, conversationId, reason],
    );
  }

  /** A team reply ends the wait for a person: the customer is not asked how to reach them after all. */
  async stopHandoverWait(accountId: string, id: number): Promise<void> {
    await execute(
      this.db,
      sql('chat_conversations_stop_handover_wait')`
        UPDATE chat.conversations SET handover_due_at = NULL WHERE account_id = $1 AND id = $2 AND handover = 'waiting'`,
      [accountId, id],
    );
  }

  /** Conversations whose wait for a team reply ran out, locked (SKIP LOCKED: any replica may take any of them). */
  async lockDueHandovers(limit: number): Promise<ConversationRow[]> {
    return queryRows<ConversationRow>(
      this.db,
      sql('chat_conversations_lock_due_handovers')`SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations
        WHERE handover = 'waiting' AND handover_due_at <= now()
        ORDER BY handover_due_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
  }

  /** Conversations of an erased customer, locked. */
  async lockCustomerConversations(accountId: string, svcId: number): Promise<ConversationRow[]> {
    return queryRows<ConversationRow>(
      this.db,
      sql('chat_conversations_lock_customer_conversations')`
        SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE account_id = $1 AND customer_svc_id = $2 FOR UPDATE`,
      [accountId, svcId],
    );
  }

  /** Removes each of `terms` from the texts of these conversations' messages. */
  async blankInMessages(accountId: string, conversationIds: number[], terms: string[]): Promise<void> {
    for (const term of terms) {
      await execute(
        this.db,
        sql('chat_conversations_blank_in_messages')`
          UPDATE chat.messages SET text = replace(text, $3, '') WHERE account_id = $1 AND conversation_id = ANY($2::bigint[]) AND strpos(text, $3) > 0`,
        [accountId, conversationIds, term],
      );
    }
  }

  /** The customer's name, email, phone and reach details leave these conversations; the next message makes a new customer. */
  async blankCustomer(accountId: string, conversationIds: number[]): Promise<void> {
    await execute(
      this.db,
      sql('chat_conversations_blank_customer')`UPDATE chat.conversations
          SET customer_svc_id = NULL, customer_identified = false, customer_name = '', customer_email = NULL, customer_phone = NULL,
              reach = CASE WHEN reach IS NULL THEN NULL ELSE reach || '{"email": "", "whatsapp": ""}'::jsonb END, updated_at = now()
        WHERE account_id = $1 AND id = ANY($2::bigint[])`,
      [accountId, conversationIds],
    );
  }

  /**
   * An erased customer's channel data: their confirmation links and codes, what was queued to
   * them, and the number of their WhatsApp conversations (a later message from it starts a new one).
   */
  async eraseChannelData(accountId: string, svcId: number, conversationIds: number[]): Promise<void> {
    await execute(
      this.db,
      sql('chat_conversations_erase_channel_data')`DELETE FROM chat.email_confirmations WHERE account_id = $1 AND customer_svc_id = $2`,
      [accountId, svcId],
    );
    await execute(
      this.db,
      sql('chat_conversations_erase_channel_data_2')`DELETE FROM chat.phone_codes WHERE account_id = $1 AND customer_svc_id = $2`,
      [accountId, svcId],
    );
    await execute(
      this.db,
      sql('chat_conversations_erase_channel_data_3')`
        DELETE FROM chat.deliveries WHERE account_id = $1 AND conversation_id = ANY($2::bigint[])`,
      [accountId, conversationIds],
    );
    await execute(
      this.db,
      sql('chat_conversations_erase_channel_data_4')`
        UPDATE chat.conversations SET whatsapp_from = NULL, token_hash = sha256(convert_to(gen_random_uuid()::text, 'UTF8'))
        WHERE account_id = $1 AND id = ANY($2::bigint[]) AND whatsapp_from IS NOT NULL`,
      [accountId, conversationIds],
    );
  }

  async enqueue(messages: DomainMessage[]): Promise<void> {
    await enqueueDomainMessages(this.db, CHAT_SCHEMA, messages);
  }
}

/** The SQL of schema `chat` for conversations and messages, and nothing else. */
@Injectable()
export class ConversationsRepository extends ConversationReads {
  constructor(private readonly dataSource: DataSource) {
    super(dataSource);
  }

  /** `manager`: for another repository's writes in the same transaction (bookings). */
  transaction<T>(work: (tx: ConversationTransaction, manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(new ConversationTransaction(manager), manager));
  }

  async create(
    accountId: string,
    tokenHash: Buffer,
    lang: string,
    customer: ConversationCustomer | null,
    businessName = '',
  ): Promise<ConversationRow> {
    const rows = await queryRows<ConversationRow>(
      this.db,
      sql('chat_conversations_create')`
        INSERT INTO chat.conversations (account_id, token_hash, lang, customer_svc_id, customer_identified, customer_name, customer_email, customer_phone, business_name)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       RETURNING ${CONVERSATION_COLUMNS}`,
      [
        accountId,
        tokenHash,
        lang,
        customer?.svcId ?? null,
        customer?.identified ?? false,
        customer?.name ?? '',
        customer?.email ?? null,
        customer?.phone ?? null,
        businessName,
      ],
    );
    return rows[0] as ConversationRow;
  }

  async byTokenHash(tokenHash: Buffer): Promise<ConversationRow | undefined> {
    return queryOne<ConversationRow>(this.db, BY_TOKEN_HASH, [tokenHash]);
  }

  /** Gives a conversation its customer unless it already has one; returns the conversation as it is now. */
  async attachCustomer(accountId: string, id: number, customer: ConversationCustomer): Promise<ConversationRow> {
    const rows = await queryRows<ConversationRow>(
      this.db,
      sql('chat_conversations_attach_customer')`WITH set AS (
         UPDATE chat.conversations
            SET customer_svc_id = $3, customer_identified = $4, customer_name = $5, customer_email = $6, customer_phone = $7, updated_at = now()
          WHERE account_id = $1 AND id = $2 AND customer_svc_id IS NULL
          RETURNING ${CONVERSATION_COLUMNS}
       )
       SELECT * FROM set
       UNION ALL
       SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE account_id = $1 AND id = $2 AND NOT EXISTS (SELECT 1 FROM set)`,
      [accountId, id, customer.svcId, customer.identified, customer.name, customer.email, customer.phone],
    );
    return rows[0] as ConversationRow;
  }

  /** A customer message in its own statement (see ConversationTransaction.addCustomerMessage). */
  addCustomerMessage(accountId: string, conversationId: number, message: NewMessage, perMinute: number): Promise<AddedMessage | undefined> {
    return addMessage(this.db, accountId, conversationId, message, { customerMessagesPerMinute: perMinute });
  }

  /** The answer to customer message `answers`, unless another process answered it first (then undefined). */
  addReply(accountId: string, conversationId: number, answers: number, message: NewMessage): Promise<AddedMessage | undefined> {
    return addMessage(this.db, accountId, conversationId, message, { answers });
  }

  /**
   * An answer that failed (a service down): counted, and the lease is cut to a delay that grows with the
   * question's age (a quarter of it, 2 to 30 s), so the sweep tries again soon but not in a loop.
   * Resolves to its failed tries so far (undefined when it is no longer pending).
   */
  async retryReplyLater(accountId: string, conversationId: number, messageId: number): Promise<number | undefined> {
    const row = await queryOne<Columns<Messages, 'reply_failures'>>(
      this.db,
      sql('chat_conversations_retry_reply_later')`UPDATE chat.messages SET reply_failures = least(reply_failures + 1, 32767),
              reply_lease_until = now() + least(interval '30 seconds', greatest(interval '2 seconds', (now() - at) / 4))
        WHERE account_id = $1 AND conversation_id = $2 AND id = $3 AND reply_pending
        RETURNING reply_failures`,
      [accountId, conversationId, messageId],
    );
    return row?.reply_failures;
  }

  /** Claims customer messages still unanswered `olderThanMs` after they were written (their process died or a service was down). */
  async claimStaleReplies(olderThanMs: number, leaseMs: number, limit: number): Promise<PendingReply[]> {
    const rows = await queryRows<
      ConversationRow & {
        message_id: Messages['id'];
        message_text: Messages['text'];
        message_failures: Columns<Messages, 'reply_failures'>['reply_failures'];
      }
    >(this.db, CLAIM_STALE_REPLIES, [olderThanMs, leaseMs, limit]);
    return rows.map(({ message_id, message_text, message_failures, ...conversation }) => ({
      id: message_id,
      text: message_text,
      failures: message_failures,
      conversation,
    }));
  }
}
