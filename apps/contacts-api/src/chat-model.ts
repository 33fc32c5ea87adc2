import { Inject, Injectable } from '@nestjs/common';
import { DomainMessage, GatewayContext } from '@svc/contracts';
import { ChatClient } from '@svc/internal-clients';
import { ApiError, APP_LOGGER, MetricsService } from '@svc/platform';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Counter } from 'prom-client';

/** The chat's client, or null when this deployment has no chat (`CHAT_URL` empty). */
export const CHAT_MODEL_CLIENT = Symbol('CHAT_MODEL_CLIENT');
/** How long a write waits at most for the chat to apply it (CHAT_MODEL_WAIT_MS). */
export const CHAT_MODEL_WAIT_MS = Symbol('CHAT_MODEL_WAIT_MS');

/** The first pause between two tries; each next one doubles, up to MAX_PAUSE_MS. */
const FIRST_PAUSE_MS = 25;
const MAX_PAUSE_MS = 400;

/**
 * Read your writes for the chat's model of customers (ADR 014): once a write of a customer has
 * committed, and before it answers, the chat applies its `contact.changed` / `contact.erased`, so
 * that every chat event after the answer carries what was written. The wait is bounded: past
 * CHAT_MODEL_WAIT_MS (the chat down) the write answers anyway, counted and logged, and the chat
 * catches up from the same messages through the broker, as it always does.
 */
@Injectable()
export class ChatModel {
  private readonly missed: Counter;

  constructor(
    @Inject(CHAT_MODEL_CLIENT) private readonly chat: ChatClient | null,
    @Inject(CHAT_MODEL_WAIT_MS) private readonly waitMs: number,
    @Inject(APP_LOGGER) private readonly logger: Logger,
    metrics: MetricsService,
  ) {
    this.missed = metrics.counter(
      'contacts_chat_model_missed_total',
      'Writes of customers that answered before the chat had applied them (the chat did not answer within CHAT_MODEL_WAIT_MS).',
    );
  }

  /** Hands `messages` (one committed write of one account) to the chat; returns once applied, or when the wait is over. */
  async tell(accountId: string, messages: readonly DomainMessage[], requestId: string): Promise<void> {
    if (!this.chat || messages.length === 0) return;
    const context: GatewayContext = { account: { id: accountId, name: '', plan: 'scale' }, keyId: 'contacts-api', requestId };
    const deadline = Date.now() + this.waitMs;
    for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
      try {
        await this.chat.applyCustomerChanges({ messages: [...messages] }, context);
        return;
      } catch (err) {
        const transient = err instanceof ApiError && err.code === 'unavailable';
        if (!transient || Date.now() + pause >= deadline) {
          this.missed.inc();
          this.logger.warn(
            { request_id: requestId, account_id: accountId, err: (err as Error).message },
            'the chat did not apply a customer write in time; it follows from the broker',
          );
          return;
        }
        await sleep(pause);
      }
    }
  }
}
