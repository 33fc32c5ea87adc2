import { ChatCitation, ChatMessage, ConversationStatus, DomainMessage, EventReach, HandoverReason, HandoverState, MessageAuthor } from '@svc/contracts';
import { enqueueDomainMessages } from '@svc/messaging';
import { DataSource, EntityManager } from 'typeorm';
import { CHAT_SCHEMA } from '../migrations';

/** The NOTIFY channel that wakes the streams of a conversation (payload: its id). Only a wake-up: streams read PostgreSQL. */
export const CONVERSATION_CHANNEL = 'chat_conversation';
/** The NOTIFY channel that wakes an account's inbox streams (payload: the account id). Only a wake-up, like the one above. */
export const INBOX_CHANNEL = 'chat_inbox';

export interface ConversationRow {
  id: number;
  account_id: string;
  channel: 'web';
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
}

/** What a new message is: the id and time are the database's. */
export interface NewMessage {
  author: MessageAuthor;
  text: string;
  citation?: ChatCitation | null;
  offersPerson?: boolean;
  /** A customer message the assistant has to answer. */
  replyPending?: boolean;
}

/** The customer a conversation belongs to, as the chat keeps it (to greet them and offer their details back). */
export interface ConversationCustomer {
  svcId: number;
  identified: boolean;
  name: string;
  email: string | null;
  phone: string | null;
}

/** A customer message the assistant has to answer, claimed by this process for a while. */
export interface PendingReply {
  conversation_id: number;
  id: number;
  account_id: string;
  text: string;
}

const CONVERSATION_COLUMNS =
  'id::float8 AS id, account_id, channel, lang, customer_svc_id::float8 AS customer_svc_id, customer_identified, customer_name, customer_email, customer_phone, status, handover, handover_reason, reach';
const MESSAGE_COLUMNS = 'id, author, text, at, citation, offers_person';

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
    const rows: ConversationRow[] = await this.db.query(`SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return rows[0];
  }

  /** Messages after `afterId`, oldest first. */
  async messages(accountId: string, conversationId: number, afterId = 0, limit = 500): Promise<ChatMessage[]> {
    const rows: MessageRow[] = await this.db.query(
      `SELECT ${MESSAGE_COLUMNS} FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 AND id > $3 ORDER BY id LIMIT $4`,
      [accountId, conversationId, afterId, limit],
    );
    return rows.map(toMessage);
  }

  /** The text of the customer's last message, or '' when they wrote nothing. */
  async lastCustomerText(accountId: string, conversationId: number): Promise<string> {
    const rows: Array<{ text: string }> = await this.db.query(
      `SELECT text FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 AND author = 'customer' ORDER BY id DESC LIMIT 1`,
      [accountId, conversationId],
    );
    return rows[0]?.text ?? '';
  }

  /** The piece the assistant's last answer cited, or null (no answer yet, or it found nothing). */
  async lastCitation(accountId: string, conversationId: number): Promise<ChatCitation | null> {
    const rows: Array<{ citation: ChatCitation | null }> = await this.db.query(
      `SELECT citation FROM chat.messages WHERE account_id = $1 AND conversation_id = $2 AND author = 'assistant' ORDER BY id DESC LIMIT 1`,
      [accountId, conversationId],
    );
    return rows[0]?.citation ?? null;
  }

  /** Whether the assistant's last answer found nothing and offered a person. */
  async lastAnswerOfferedPerson(accountId: string, conversationId: number): Promise<boolean> {
    const rows: Array<{ offers_person: boolean }> = await this.db.query(
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

  async lock(accountId: string, id: number): Promise<ConversationRow | undefined> {
    const rows: ConversationRow[] = await this.db.query(`SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE account_id = $1 AND id = $2 FOR UPDATE`, [accountId, id]);
    return rows[0];
  }

  /**
   * Appends a message with the conversation's next id. The conversation row stays locked until
   * commit, so one conversation's messages commit in id order (a stream never skips one), and the
   * NOTIFY wakes its streams when the transaction commits.
   */
  async addMessage(accountId: string, conversationId: number, message: NewMessage): Promise<ChatMessage> {
    const rows: MessageRow[] = await this.db.query(
      `WITH next AS (
         UPDATE chat.conversations SET last_message_id = last_message_id + 1, updated_at = now()
          WHERE account_id = $1 AND id = $2
          RETURNING last_message_id
       ), added AS (
         INSERT INTO chat.messages (conversation_id, id, account_id, author, text, citation, offers_person, reply_pending)
         SELECT $2, last_message_id, $1, $3, $4, $5::jsonb, $6, $7 FROM next
         RETURNING ${MESSAGE_COLUMNS}
       )
       SELECT added.*, pg_notify('${CONVERSATION_CHANNEL}', $2::text), pg_notify('${INBOX_CHANNEL}', $1::text) FROM added`,
      [
        accountId,
        conversationId,
        message.author,
        message.text,
        message.citation ? JSON.stringify(message.citation) : null,
        message.offersPerson ?? false,
        message.replyPending ?? false,
      ],
    );
    return toMessage(rows[0] as MessageRow);
  }

  /** Moves the hand-over on (`dueInMs`: when the wait for a team reply runs out) and wakes the streams. */
  async setHandover(
    accountId: string,
    id: number,
    change: { status: ConversationStatus; handover: HandoverState; reason?: HandoverReason; dueInMs?: number; reach?: EventReach },
  ): Promise<void> {
    await this.db.query(
      `UPDATE chat.conversations
          SET status = $3, handover = $4, handover_reason = coalesce($5, handover_reason),
              handover_due_at = CASE WHEN $6::bigint IS NULL THEN NULL ELSE now() + $6::bigint * interval '1 millisecond' END,
              reach = coalesce($7::jsonb, reach), updated_at = now()
        WHERE account_id = $1 AND id = $2`,
      [accountId, id, change.status, change.handover, change.reason ?? null, change.dueInMs ?? null, change.reach ? JSON.stringify(change.reach) : null],
    );
    await this.db.query(`SELECT pg_notify('${CONVERSATION_CHANNEL}', $1::text), pg_notify('${INBOX_CHANNEL}', $2::text)`, [String(id), accountId]);
  }

  /** Records a hand-over as it happens (the analytics count them by reason and day). */
  async recordHandover(accountId: string, conversationId: number, reason: HandoverReason): Promise<void> {
    await this.db.query(`INSERT INTO chat.handovers (account_id, conversation_id, reason) VALUES ($1, $2, $3)`, [accountId, conversationId, reason]);
  }

  /** A team reply ends the wait for a person: the customer is not asked how to reach them after all. */
  async stopHandoverWait(accountId: string, id: number): Promise<void> {
    await this.db.query(`UPDATE chat.conversations SET handover_due_at = NULL WHERE account_id = $1 AND id = $2 AND handover = 'waiting'`, [accountId, id]);
  }

  /**
   * Marks a claimed customer message answered; false when it already was (another replica finished
   * it after this one's lease ran out): then this answer is dropped.
   */
  async finishReply(accountId: string, conversationId: number, messageId: number): Promise<boolean> {
    const [, affected]: [unknown, number] = await this.db.query(
      `UPDATE chat.messages SET reply_pending = false, reply_lease_until = NULL WHERE account_id = $1 AND conversation_id = $2 AND id = $3 AND reply_pending`,
      [accountId, conversationId, messageId],
    );
    return affected === 1;
  }

  /** Conversations whose wait for a team reply ran out, locked (SKIP LOCKED: any replica may take any of them). */
  async lockDueHandovers(limit: number): Promise<ConversationRow[]> {
    return this.db.query(
      `SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations
        WHERE handover = 'waiting' AND handover_due_at <= now()
        ORDER BY handover_due_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
  }

  /** Conversations of an erased customer, locked. */
  async lockCustomerConversations(accountId: string, svcId: number): Promise<ConversationRow[]> {
    return this.db.query(`SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE account_id = $1 AND customer_svc_id = $2 FOR UPDATE`, [accountId, svcId]);
  }

  /** Removes each of `terms` from the texts of these conversations' messages. */
  async blankInMessages(accountId: string, conversationIds: number[], terms: string[]): Promise<void> {
    for (const term of terms) {
      await this.db.query(
        `UPDATE chat.messages SET text = replace(text, $3, '') WHERE account_id = $1 AND conversation_id = ANY($2::bigint[]) AND strpos(text, $3) > 0`,
        [accountId, conversationIds, term],
      );
    }
  }

  /** The customer's name, email, phone and reach details leave these conversations; the next message makes a new customer. */
  async blankCustomer(accountId: string, conversationIds: number[]): Promise<void> {
    await this.db.query(
      `UPDATE chat.conversations
          SET customer_svc_id = NULL, customer_identified = false, customer_name = '', customer_email = NULL, customer_phone = NULL,
              reach = CASE WHEN reach IS NULL THEN NULL ELSE reach || '{"email": "", "whatsapp": ""}'::jsonb END, updated_at = now()
        WHERE account_id = $1 AND id = ANY($2::bigint[])`,
      [accountId, conversationIds],
    );
  }

  async enqueue(messages: DomainMessage[]): Promise<void> {
    await enqueueDomainMessages(this.db, CHAT_SCHEMA, messages);
  }
}

/** The SQL of schema `chat` for conversations and messages, and nothing else. */
export class ConversationsRepository extends ConversationReads {
  constructor(private readonly dataSource: DataSource) {
    super(dataSource);
  }

  /** `manager`: for another repository's writes in the same transaction (bookings). */
  transaction<T>(work: (tx: ConversationTransaction, manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(new ConversationTransaction(manager), manager));
  }

  async create(accountId: string, tokenHash: Buffer, lang: string, customer: ConversationCustomer | null): Promise<ConversationRow> {
    const rows: ConversationRow[] = await this.db.query(
      `INSERT INTO chat.conversations (account_id, token_hash, lang, customer_svc_id, customer_identified, customer_name, customer_email, customer_phone)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       RETURNING ${CONVERSATION_COLUMNS}`,
      [accountId, tokenHash, lang, customer?.svcId ?? null, customer?.identified ?? false, customer?.name ?? '', customer?.email ?? null, customer?.phone ?? null],
    );
    return rows[0] as ConversationRow;
  }

  async byTokenHash(tokenHash: Buffer): Promise<ConversationRow | undefined> {
    const rows: ConversationRow[] = await this.db.query(`SELECT ${CONVERSATION_COLUMNS} FROM chat.conversations WHERE token_hash = $1`, [tokenHash]);
    return rows[0];
  }

  /** Gives a conversation its customer unless it already has one; returns the conversation as it is now. */
  async attachCustomer(accountId: string, id: number, customer: ConversationCustomer): Promise<ConversationRow> {
    const rows: ConversationRow[] = await this.db.query(
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
    const [rows]: [PendingReply[], number] = await this.db.query(
      `UPDATE chat.messages SET reply_lease_until = now() + $4::bigint * interval '1 millisecond'
        WHERE account_id = $1 AND conversation_id = $2 AND id = $3 AND reply_pending
          AND (reply_lease_until IS NULL OR reply_lease_until < now())
        RETURNING conversation_id::float8 AS conversation_id, id, account_id, text`,
      [accountId, conversationId, messageId, leaseMs],
    );
    return rows[0];
  }

  /** Claims customer messages still unanswered `olderThanMs` after they were written (their process died or a service was down). */
  async claimStaleReplies(olderThanMs: number, leaseMs: number, limit: number): Promise<PendingReply[]> {
    const [rows]: [PendingReply[], number] = await this.db.query(
      `UPDATE chat.messages m SET reply_lease_until = now() + $2::bigint * interval '1 millisecond'
         FROM (SELECT conversation_id, id FROM chat.messages
                WHERE reply_pending AND at < now() - $1::bigint * interval '1 millisecond'
                  AND (reply_lease_until IS NULL OR reply_lease_until < now())
                ORDER BY at LIMIT $3 FOR UPDATE SKIP LOCKED) due
        WHERE m.conversation_id = due.conversation_id AND m.id = due.id
        RETURNING m.conversation_id::float8 AS conversation_id, m.id, m.account_id, m.text`,
      [olderThanMs, leaseMs, limit],
    );
    return rows;
  }
}
