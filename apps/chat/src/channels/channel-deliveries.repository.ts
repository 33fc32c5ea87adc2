import { Injectable } from '@nestjs/common';
import { Columns } from '@svc/persistence';
import { DataSource, EntityManager } from 'typeorm';
import type { Deliveries } from '../schema.generated';
import type { OutgoingEmail, WhatsappOutbound } from './senders';
import { execute, queryRows, sql } from '../statements';

/** What the chat sends, durable: written in the transaction of the change that makes it. */
export type DeliveryPayload =
  { kind: 'whatsapp'; phoneNumberId: string; message: WhatsappOutbound } | { kind: 'email'; email: OutgoingEmail };

export interface ChannelDelivery {
  id: number;
  account_id: string;
  conversation_id: number | null;
  attempts: number;
  payload: DeliveryPayload;
}

export type DeliveryState = 'pending' | 'sent' | 'failed';

/** A claimed delivery is not due again for this long (a crashed sender's claim runs out). */
const CLAIM_MS = 60_000;

/** The SQL of `chat.deliveries`. */
@Injectable()
export class ChannelDeliveriesRepository {
  constructor(private readonly db: DataSource) {}

  /** Enqueues a send in the caller's transaction (or on its own). */
  static async enqueue(
    db: DataSource | EntityManager,
    accountId: string,
    conversationId: number | null,
    payload: DeliveryPayload,
  ): Promise<number> {
    const rows = await queryRows<Columns<Deliveries, 'id'>>(
      db,
      sql('chat_channel_deliveries_enqueue')`
        INSERT INTO chat.deliveries (account_id, kind, conversation_id, payload) VALUES ($1, $2, $3, $4::jsonb) RETURNING id`,
      [accountId, payload.kind, conversationId, JSON.stringify(payload)],
    );
    return Number(rows[0]?.id);
  }

  /** Claims due deliveries (SKIP LOCKED: any replica may take any of them), counting the attempt. */
  async claimDue(limit: number): Promise<ChannelDelivery[]> {
    const rows = await queryRows<
      Omit<Columns<Deliveries, 'id' | 'account_id' | 'conversation_id' | 'attempts' | 'payload'>, 'payload'> &
        Pick<ChannelDelivery, 'payload'>
    >(
      this.db,
      sql('chat_channel_deliveries_claim_due')`
        UPDATE chat.deliveries d SET attempts = attempts + 1, next_attempt_at = now() + $2::bigint * interval '1 millisecond'
        WHERE id IN (SELECT id FROM chat.deliveries WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
                      ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
        RETURNING id, account_id, conversation_id, attempts, payload`,
      [limit, CLAIM_MS],
    );
    return rows.map((row) => ({
      ...row,
      id: Number(row.id),
      conversation_id: row.conversation_id === null ? null : Number(row.conversation_id),
    }));
  }

  async markSent(id: number, providerId: string): Promise<void> {
    await execute(
      this.db,
      sql('chat_channel_deliveries_mark_sent')`
        UPDATE chat.deliveries SET sent_at = now(), provider_id = $2, last_error = NULL WHERE id = $1`,
      [id, providerId],
    );
  }

  async retryLater(id: number, delayMs: number, error: string): Promise<void> {
    await execute(
      this.db,
      sql('chat_channel_deliveries_retry_later')`
        UPDATE chat.deliveries SET next_attempt_at = now() + $2::bigint * interval '1 millisecond', last_error = $3 WHERE id = $1`,
      [id, delayMs, error],
    );
  }

  async park(id: number, error: string): Promise<void> {
    await execute(
      this.db,
      sql('chat_channel_deliveries_park')`UPDATE chat.deliveries SET failed_at = now(), last_error = $2 WHERE id = $1`,
      [id, error],
    );
  }

  /** The state of the newest email sent for a conversation (the widget's "on its way"), or null. */
  async emailState(accountId: string, conversationId: number): Promise<DeliveryState | null> {
    const rows = await queryRows<Columns<Deliveries, 'sent_at' | 'failed_at'>>(
      this.db,
      sql('chat_channel_deliveries_email_state')`
        SELECT sent_at, failed_at FROM chat.deliveries WHERE account_id = $1 AND conversation_id = $2 AND kind = 'email' ORDER BY id DESC LIMIT 1`,
      [accountId, conversationId],
    );
    const row = rows[0];
    if (!row) return null;
    return row.sent_at ? 'sent' : row.failed_at ? 'failed' : 'pending';
  }
}
