import { Injectable } from '@nestjs/common';
import {
  ChatChannel,
  ChatCitation,
  ChatMessage,
  ConversationStatus,
  DomainMessage,
  EventReach,
  HandoverReason,
  HandoverState,
  MessageAuthor,
} from '@svc/contracts';
import { enqueueDomainMessages } from '@svc/messaging';
import { ASYNC_COMMIT, execute, PreparedStatement, queryOne, queryRows, SqlParam } from '@svc/persistence';
import { DataSource, EntityManager } from 'typeorm';
import { CHAT_SCHEMA } from '../migrations';

/** The NOTIFY channel that wakes the streams of a conversation (payload: its id). Only a wake-up: streams read PostgreSQL. */
export const CONVERSATION_CHANNEL = 'chat_conversation';
/** The NOTIFY channel that wakes an account's inbox streams (payload: the account id). Only a wake-up, like the one above. */
export const INBOX_CHANNEL = 'chat_inbox';

export interface ConversationRow {
  id: number;
  account_id: string;
  channel: ChatChannel;
  lang: string;
  customer_svc_id: number | null;
  customer_identified: boolean;
  customer_name: string;
  customer_email: string | null;
  customer_phone: string | null;
  status: ConversationStatus;
  handover: HandoverState;
  handover_reason: HandoverReason | null;
  reach: EventReach | null;
  /** The account's name when the conversation began (confirmation emails name the business). */
  business_name: string;
}

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

/**
 * A statement of every customer message and reply (a visitor's call, the assistant's answer, a
 * stream's read): a named prepared statement, planned once per connection instead of on each call.
 */
const hot = (name: string, text: string): PreparedStatement => ({ name: `chat_${name}`, text });

const STREAM_READ = hot(
  'stream_read',
  `SELECT c.status, c.handover, m.id, m.author, m.text, m.at, m.citation, m.offers_person
     FROM chat.conversations c
     LEFT JOIN LATERAL (
       SELECT ${MESSAGE_COLUMNS} FROM chat.messages
        WHERE account_id = c.account_id AND conversation_id = c.id AND id > $3 ORDER BY id LIMIT $4) m ON true
    WHERE c.account_id = $1 AND c.id = $2
    ORDER BY m.id`,
);
const RECENT_CUSTOMER_MESSAGES = hot(
  'recent_customer_messages',
  `SELECT count(*)::int AS count,
          coalesce(ceil(extract(epoch FROM min(at) + $3 * interval '1 millisecond' - now()) * 1000), 0)::int AS retry_after_ms
     FROM chat.messages
    WHERE account_id = $1 AND conversation_id = $2 AND author = 'customer' AND at > now() - $3 * interval '1 millisecond'`,
);
const LOCK = hot('lock', `SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE account_id = $1 AND id = $2 FOR UPDATE`);
const ADD_MESSAGE = hot(
  'add_message',
  `WITH next AS (
     UPDATE chat.conversations SET last_message_id = last_message_id + 1, updated_at = now()
      WHERE account_id = $1 AND id = $2
      RETURNING last_message_id, channel, whatsapp_from
   ), added AS (
     INSERT INTO chat.messages (conversation_id, id, account_id, author, text, citation, offers_person, reply_pending)
     SELECT $2, last_message_id, $1, $3, $4, $5::jsonb, $6, $7 FROM next
     RETURNING ${MESSAGE_COLUMNS}
   ), whatsapp AS (
     INSERT INTO chat.deliveries (account_id, kind, conversation_id, payload)
     SELECT $1, 'whatsapp', $2,
            jsonb_build_object('kind', 'whatsapp', 'phoneNumberId', n.phone_number_id, 'message', jsonb_build_object('to', next.whatsapp_from, 'type', 'text', 'text', $4::text))
       FROM next JOIN chat.whatsapp_numbers n ON n.account_id = $1
      WHERE $8 AND next.channel = 'whatsapp' AND next.whatsapp_from IS NOT NULL
   )
   SELECT added.*, pg_notify('${CONVERSATION_CHANNEL}', $2::text), pg_notify('${INBOX_CHANNEL}', $1::text) FROM added`,
);
/**
 * The reply's transaction commits without waiting for its WAL flush: a database crash that loses
 * it leaves the customer message `reply_pending`, and the sweep answers it anew.
 */
const FINISH_REPLY = hot(
  'finish_reply',
  `UPDATE chat.messages SET reply_pending = false, reply_lease_until = NULL
     FROM (${ASYNC_COMMIT}) AS async_commit
    WHERE account_id = $1 AND conversation_id = $2 AND id = $3 AND reply_pending`,
);
/** The messages an UPDATE … RETURNING `claim` claimed, each with its conversation, in the same statement. */
const claiming = (name: string, claim: string): PreparedStatement =>
  hot(
    name,
    `WITH claimed AS (${claim})
     SELECT claimed.id AS message_id, claimed.text AS message_text, ${conversationColumns('c')}
       FROM claimed JOIN chat.conversations c ON c.account_id = claimed.account_id AND c.id = claimed.conversation_id`,
  );
const CLAIM_REPLY = claiming(
  'claim_reply',
  `UPDATE chat.messages SET reply_lease_until = now() + $4::bigint * interval '1 millisecond'
    WHERE account_id = $1 AND conversation_id = $2 AND id = $3 AND reply_pending
      AND (reply_lease_until IS NULL OR reply_lease_until < now())
    RETURNING conversation_id, id, account_id, text`,
);
const CLAIM_STALE_REPLIES = claiming(
  'claim_stale_replies',
  `UPDATE chat.messages m SET reply_lease_until = now() + $2::bigint * interval '1 millisecond'
     FROM (SELECT conversation_id, id FROM chat.messages
            WHERE reply_pending AND at < now() - $1::bigint * interval '1 millisecond'
              AND (reply_lease_until IS NULL OR reply_lease_until < now())
            ORDER BY at LIMIT $3 FOR UPDATE SKIP LOCKED) due
    WHERE m.conversation_id = due.conversation_id AND m.id = due.id
    RETURNING m.conversation_id, m.id, m.account_id, m.text`,
);
const BY_TOKEN_HASH = hot('by_token_hash', `SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE token_hash = $1`);

type MessageRow = ChatMessage;

const toMessage = (row: MessageRow): ChatMessage => ({
  id: row.id,
  author: row.author,
  text: row.text,
  at: row.at,
  citation: row.citation,
  offers_person: row.offers_person,
});

/** Reads, every one scoped by account. */
class ConversationReads {
  constructor(protected readonly db: DataSource | EntityManager) {}

  async get(accountId: string, id: number): Promise<ConversationRow | undefined> {
    return queryOne<ConversationRow>(this.db, `SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE account_id = $1 AND id = $2`, [
      accountId,
      id,
    ]);
  }

  /** Messages after `afterId`, oldest first. */
  async messages(accountId: string, conversationId: number, afterId = 0, limit = 500): Promise<ChatMessage[]> {
    const rows = await queryRows<MessageRow>(
      this.db,
      `SELECT ${MESSAGE_COLUMNS} FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 AND id > $3 ORDER BY id LIMIT $4`,
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
  ): Promise<{ messages: ChatMessage[]; state: ConversationState } | undefined> {
    const rows = await queryRows<ConversationState & Partial<MessageRow>>(this.db, STREAM_READ, [
      accountId,
      conversationId,
      afterId,
      limit,
    ]);
    const first = rows[0];
    if (!first) return undefined;
    const messages = rows.filter((row): row is ConversationState & MessageRow => row.id !== null && row.id !== undefined).map(toMessage);
    return { messages, state: { status: first.status, handover: first.handover } };
  }

  /** The text of the customer's last message, or '' when they wrote nothing. */
  async lastCustomerText(accountId: string, conversationId: number): Promise<string> {
    const rows = await queryRows<{ text: string }>(
      this.db,
      `SELECT text FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 AND author = 'customer' ORDER BY id DESC LIMIT 1`,
      [accountId, conversationId],
    );
    return rows[0]?.text ?? '';
  }

  /** How many messages the customer wrote within the last `windowMs`, and in how long the oldest of them leaves that window. */
  async recentCustomerMessages(
    accountId: string,
    conversationId: number,
    windowMs: number,
  ): Promise<{ count: number; retryAfterMs: number }> {
    const rows = await queryRows<{ count: number; retry_after_ms: number }>(this.db, RECENT_CUSTOMER_MESSAGES, [
      accountId,
      conversationId,
      windowMs,
    ]);
    return { count: rows[0]?.count ?? 0, retryAfterMs: rows[0]?.retry_after_ms ?? 0 };
  }

  /** The piece the assistant's last answer cited, or null (no answer yet, or it found nothing). */
  async lastCitation(accountId: string, conversationId: number): Promise<ChatCitation | null> {
    const rows = await queryRows<{ citation: ChatCitation | null }>(
      this.db,
      `SELECT citation FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 AND author = 'assistant' ORDER BY id DESC LIMIT 1`,
      [accountId, conversationId],
    );
    return rows[0]?.citation ?? null;
  }

  /** Whether the assistant's last answer found nothing and offered a person. */
  async lastAnswerOfferedPerson(accountId: string, conversationId: number): Promise<boolean> {
    const rows = await queryRows<{ offers_person: boolean }>(
      this.db,
      `SELECT offers_person FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 AND author = 'assistant' ORDER BY id DESC LIMIT 1`,
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

  /**
   * Appends a message with the conversation's next id. The conversation row stays locked until
   * commit, so one conversation's messages commit in id order (a stream never skips one), and the
   * NOTIFY wakes its streams when the transaction commits. An assistant or team message of a
   * WhatsApp conversation also goes out through the Cloud API, durably (chat.deliveries), in the
   * same statement: one round trip whatever the channel.
   */
  async addMessage(accountId: string, conversationId: number, message: NewMessage): Promise<ChatMessage> {
    const toWhatsapp = (message.author === 'assistant' || message.author === 'team') && message.sendOnWhatsapp !== false;
    const rows = await queryRows<MessageRow>(this.db, ADD_MESSAGE, [
      accountId,
      conversationId,
      message.author,
      message.text,
      message.citation ? JSON.stringify(message.citation) : null,
      message.offersPerson ?? false,
      message.replyPending ?? false,
      toWhatsapp,
    ]);
    return toMessage(rows[0] as MessageRow);
  }

  /** Moves the hand-over on (`dueInMs`: when the wait for a team reply runs out) and wakes the streams. */
  async setHandover(
    accountId: string,
    id: number,
    change: { status: ConversationStatus; handover: HandoverState; reason?: HandoverReason; dueInMs?: number; reach?: EventReach },
  ): Promise<void> {
    await execute(
      this.db,
      `UPDATE chat.conversations
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
    await execute(this.db, `SELECT pg_notify('${CONVERSATION_CHANNEL}', $1::text), pg_notify('${INBOX_CHANNEL}', $2::text)`, [
      String(id),
      accountId,
    ]);
  }

  /** Records a hand-over as it happens (the analytics count them by reason and day). */
  async recordHandover(accountId: string, conversationId: number, reason: HandoverReason): Promise<void> {
    await execute(this.db, `INSERT INTO chat.handovers (account_id, conversation_id, reason) VALUES ($1, $2, $3)`, [
      accountId,
      conversationId,
      reason,
    ]);
  }

  /** A team reply ends the wait for a person: the customer is not asked how to reach them after all. */
  async stopHandoverWait(accountId: string, id: number): Promise<void> {
    await execute(
      this.db,
      `UPDATE chat.conversations SET handover_due_at = NULL WHERE account_id = $1 AND id = $2 AND handover = 'waiting'`,
      [accountId, id],
    );
  }

  /**
   * Marks a claimed customer message answered; false when it already was (another replica finished
   * it after this one's lease ran out): then this answer is dropped. The transaction then commits
   * without waiting for its WAL flush (see FINISH_REPLY).
   */
  async finishReply(accountId: string, conversationId: number, messageId: number): Promise<boolean> {
    const affected = await execute(this.db, FINISH_REPLY, [accountId, conversationId, messageId]);
    return affected === 1;
  }

  /** Conversations whose wait for a team reply ran out, locked (SKIP LOCKED: any replica may take any of them). */
  async lockDueHandovers(limit: number): Promise<ConversationRow[]> {
    return queryRows<ConversationRow>(
      this.db,
      `SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations
        WHERE handover = 'waiting' AND handover_due_at <= now()
        ORDER BY handover_due_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
  }

  /** Conversations of an erased customer, locked. */
  async lockCustomerConversations(accountId: string, svcId: number): Promise<ConversationRow[]> {
    return queryRows<ConversationRow>(
      this.db,
      `SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE account_id = $1 AND customer_svc_id = $2 FOR UPDATE`,
      [accountId, svcId],
    );
  }

  /** Removes each of `terms` from the texts of these conversations' messages. */
  async blankInMessages(accountId: string, conversationIds: number[], terms: string[]): Promise<void> {
    for (const term of terms) {
      await execute(
        this.db,
        `UPDATE chat.messages SET text = replace(text, $3, '') WHERE account_id = $1 AND conversation_id = ANY($2::bigint[]) AND strpos(text, $3) > 0`,
        [accountId, conversationIds, term],
      );
    }
  }

  /** The customer's name, email, phone and reach details leave these conversations; the next message makes a new customer. */
  async blankCustomer(accountId: string, conversationIds: number[]): Promise<void> {
    await execute(
      this.db,
      `UPDATE chat.conversations
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
    await execute(this.db, `DELETE FROM chat.email_confirmations WHERE account_id = $1 AND customer_svc_id = $2`, [accountId, svcId]);
    await execute(this.db, `DELETE FROM chat.phone_codes WHERE account_id = $1 AND customer_svc_id = $2`, [accountId, svcId]);
    await execute(this.db, `DELETE FROM chat.deliveries WHERE account_id = $1 AND conversation_id = ANY($2::bigint[])`, [
      accountId,
      conversationIds,
    ]);
    await execute(
      this.db,
      `UPDATE chat.conversations SET whatsapp_from = NULL, token_hash = sha256(convert_to(gen_random_uuid()::text, 'UTF8'))
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
      `INSERT INTO chat.conversations (account_id, token_hash, lang, customer_svc_id, customer_identified, customer_name, customer_email, customer_phone, business_name)
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
      `WITH set AS (
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

  /** Claims one customer message for answering (a lease of `leaseMs`), if it is still pending and nobody holds it. */
  async claimReply(accountId: string, conversationId: number, messageId: number, leaseMs: number): Promise<PendingReply | undefined> {
    return (await this.claimed(CLAIM_REPLY, [accountId, conversationId, messageId, leaseMs]))[0];
  }

  /** Claims customer messages still unanswered `olderThanMs` after they were written (their process died or a service was down). */
  claimStaleReplies(olderThanMs: number, leaseMs: number, limit: number): Promise<PendingReply[]> {
    return this.claimed(CLAIM_STALE_REPLIES, [olderThanMs, leaseMs, limit]);
  }

  private async claimed(claim: PreparedStatement, params: SqlParam[]): Promise<PendingReply[]> {
    const rows = await queryRows<ConversationRow & { message_id: number; message_text: string }>(this.db, claim, params);
    return rows.map(({ message_id, message_text, ...conversation }) => ({ id: message_id, text: message_text, conversation }));
  }
}
