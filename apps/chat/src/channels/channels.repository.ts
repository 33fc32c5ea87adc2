import { Injectable } from '@nestjs/common';
import { Columns } from '@svc/persistence';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { ConversationRow, ConversationsRepository } from '../conversations/conversations.repository';
import type { Conversations, EmailConfirmations, PhoneCodes, WhatsappNumbers } from '../schema.generated';
import { execute, queryOne, queryRows, sql } from '../statements';

export type WhatsappNumber = Columns<WhatsappNumbers, 'account_id' | 'phone_number_id' | 'number'>;

/**
 * A phone code (ids read ::float8); `next_token_hash` is the token the conversation gets when the code
 * confirms the phone (the widget that asked for the code holds it).
 */
export type PhoneCode = Columns<PhoneCodes, 'phone' | 'code' | 'expires_at' | 'next_token_hash'> & {
  conversation_id: number;
  customer_svc_id: number;
};

/**
 * An email link (ids read ::float8); `next_token_hash` is the token the conversation gets when the link
 * confirms the address (the widget that left it holds it).
 */
export type EmailConfirmation = Columns<EmailConfirmations, 'account_id' | 'email' | 'next_token_hash'> & {
  customer_svc_id: number;
  conversation_id: number;
  expired: boolean;
  used: boolean;
};

/** A WhatsApp conversation is found by its customer's number: its `token_hash` is derived from it (no visitor token exists). */
export function whatsappConversationKey(accountId: string, from: string): Buffer {
  return createHash('sha256').update(`whatsapp:${accountId}:${from}`).digest();
}

/** The SQL of the chat's channels (WhatsApp numbers, inbound ids, statuses, codes, email links), and nothing else. */
@Injectable()
export class ChannelsRepository {
  constructor(
    private readonly db: DataSource,
    private readonly conversations: ConversationsRepository,
  ) {}

  async connectNumber(accountId: string, phoneNumberId: string, number: string): Promise<WhatsappNumber> {
    const rows = await queryRows<WhatsappNumber>(
      this.db,
      sql('chat_channels_connect_number')`INSERT INTO chat.whatsapp_numbers (account_id, phone_number_id, number) VALUES ($1, $2, $3)
       ON CONFLICT (account_id) DO UPDATE SET phone_number_id = $2, number = $3, updated_at = now()
       RETURNING account_id, phone_number_id, number`,
      [accountId, phoneNumberId, number],
    );
    return rows[0] as WhatsappNumber;
  }

  async numberByPhoneNumberId(phoneNumberId: string): Promise<WhatsappNumber | undefined> {
    return queryOne<WhatsappNumber>(
      this.db,
      sql('chat_channels_number_by_phone_number_id')`
        SELECT account_id, phone_number_id, number FROM chat.whatsapp_numbers WHERE phone_number_id = $1`,
      [phoneNumberId],
    );
  }

  async numberOf(accountId: string): Promise<WhatsappNumber | undefined> {
    return queryOne<WhatsappNumber>(
      this.db,
      sql('chat_channels_number_of')`SELECT account_id, phone_number_id, number FROM chat.whatsapp_numbers WHERE account_id = $1`,
      [accountId],
    );
  }

  async seenInbound(messageId: string): Promise<boolean> {
    const rows = await queryRows<object>(
      this.db,
      sql('chat_channels_seen_inbound')`SELECT 1 FROM chat.whatsapp_inbound WHERE message_id = $1`,
      [messageId],
    );
    return rows.length > 0;
  }

  /** Records an inbound message id in the caller's transaction; false when it was already taken in. */
  static async takeInbound(tx: EntityManager, accountId: string, messageId: string): Promise<boolean> {
    const rows = await queryRows<object>(
      tx,
      sql('chat_channels_take_inbound')`
        INSERT INTO chat.whatsapp_inbound (message_id, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1`,
      [messageId, accountId],
    );
    return rows.length === 1;
  }

  async recordStatus(accountId: string, messageId: string, status: string, at: Date): Promise<void> {
    await execute(
      this.db,
      sql('chat_channels_record_status')`
        INSERT INTO chat.whatsapp_statuses (message_id, status, account_id, at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [messageId, status, accountId, at],
    );
  }

  /** The account's conversation with this WhatsApp number, created on its first message. */
  async whatsappConversation(accountId: string, from: string): Promise<ConversationRow> {
    const key = whatsappConversationKey(accountId, from);
    await execute(
      this.db,
      sql('chat_channels_whatsapp_conversation')`
        INSERT INTO chat.conversations (account_id, channel, token_hash, whatsapp_from, customer_phone) VALUES ($1, 'whatsapp', $2, $3, $3) ON CONFLICT (token_hash) DO NOTHING`,
      [accountId, key, from],
    );
    return (await this.conversations.byTokenHash(key)) as ConversationRow;
  }

  /** When the customer last wrote on WhatsApp (the 24-hour window), or null. */
  async lastCustomerAt(accountId: string, conversationId: number): Promise<Date | null> {
    const rows = await queryRows<Columns<Conversations, 'last_customer_at'>>(
      this.db,
      sql('chat_channels_last_customer_at')`SELECT last_customer_at FROM chat.conversations WHERE account_id = $1 AND id = $2`,
      [accountId, conversationId],
    );
    const at = rows[0]?.last_customer_at;
    return at ? new Date(at) : null;
  }

  static async touchCustomer(tx: EntityManager, accountId: string, conversationId: number): Promise<void> {
    await execute(
      tx,
      sql('chat_channels_touch_customer')`UPDATE chat.conversations SET last_customer_at = now() WHERE account_id = $1 AND id = $2`,
      [accountId, conversationId],
    );
  }

  /** A new code for a conversation replaces its previous one; it lasts `ttlMs`. */
  async newPhoneCode(
    accountId: string,
    conversationId: number,
    svcId: number,
    phone: string,
    code: string,
    ttlMs: number,
    nextTokenHash: Buffer,
  ): Promise<PhoneCode> {
    const rows = await queryRows<PhoneCode>(
      this.db,
      sql('chat_channels_new_phone_code')`
        INSERT INTO chat.phone_codes (conversation_id, account_id, customer_svc_id, phone, code, expires_at, next_token_hash)
       VALUES ($1, $2, $3, $4, $5, now() + $6::bigint * interval '1 millisecond', $7)
       ON CONFLICT (conversation_id) DO UPDATE
         SET customer_svc_id = $3, phone = $4, code = $5, expires_at = excluded.expires_at, used_at = NULL, next_token_hash = $7
       RETURNING conversation_id::float8 AS conversation_id, customer_svc_id::float8 AS customer_svc_id, phone, code, expires_at, next_token_hash`,
      [conversationId, accountId, svcId, phone, code, ttlMs, nextTokenHash],
    );
    return rows[0] as PhoneCode;
  }

  /** Uses the live code sent from `phone` (single use); undefined when none matches. */
  async usePhoneCode(accountId: string, phone: string, code: string): Promise<PhoneCode | undefined> {
    return queryOne<PhoneCode>(
      this.db,
      sql('chat_channels_use_phone_code')`UPDATE chat.phone_codes SET used_at = now()
        WHERE account_id = $1 AND phone = $2 AND code = $3 AND used_at IS NULL AND expires_at > now()
        RETURNING conversation_id::float8 AS conversation_id, customer_svc_id::float8 AS customer_svc_id, phone, code, expires_at, next_token_hash`,
      [accountId, phone, code],
    );
  }

  /** Gives a used code back (the confirmation could not be made now: the customer may send it again). */
  async releasePhoneCode(conversationId: number): Promise<void> {
    await execute(this.db, sql('chat_channels_release_phone_code')`UPDATE chat.phone_codes SET used_at = NULL WHERE conversation_id = $1`, [
      conversationId,
    ]);
  }

  static async newEmailConfirmation(
    tx: EntityManager | DataSource,
    row: {
      tokenHash: Buffer;
      accountId: string;
      svcId: number;
      email: string;
      conversationId: number;
      ttlMs: number;
      nextTokenHash: Buffer;
    },
  ): Promise<void> {
    await execute(
      tx,
      sql('chat_channels_new_email_confirmation')`
        INSERT INTO chat.email_confirmations (token_hash, account_id, customer_svc_id, email, conversation_id, expires_at, next_token_hash)
       VALUES ($1, $2, $3, $4, $5, now() + $6::bigint * interval '1 millisecond', $7)`,
      [row.tokenHash, row.accountId, row.svcId, row.email, row.conversationId, row.ttlMs, row.nextTokenHash],
    );
  }

  async emailConfirmation(tokenHash: Buffer): Promise<EmailConfirmation | undefined> {
    return queryOne<EmailConfirmation>(
      this.db,
      sql('chat_channels_email_confirmation')`
        SELECT account_id, customer_svc_id::float8 AS customer_svc_id, email, conversation_id::float8 AS conversation_id,
              expires_at <= now() AS expired, used_at IS NOT NULL AS used, next_token_hash
         FROM chat.email_confirmations WHERE token_hash = $1`,
      [tokenHash],
    );
  }

  /** Marks a link used; false when another opening used it first (or it expired meanwhile). */
  async useEmailConfirmation(tokenHash: Buffer): Promise<boolean> {
    const affected = await execute(
      this.db,
      sql('chat_channels_use_email_confirmation')`
        UPDATE chat.email_confirmations SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()`,
      [tokenHash],
    );
    return affected === 1;
  }

  async releaseEmailConfirmation(tokenHash: Buffer): Promise<void> {
    await execute(
      this.db,
      sql('chat_channels_release_email_confirmation')`UPDATE chat.email_confirmations SET used_at = NULL WHERE token_hash = $1`,
      [tokenHash],
    );
  }
}
