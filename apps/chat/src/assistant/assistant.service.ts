import { BeforeApplicationShutdown, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { InjectLogger, MetricsService } from '@svc/platform';
import { ChatMessage, EventContact } from '@svc/contracts';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ChatEvents } from '../conversations/chat-events';
import { ConversationsRepository, PendingReply } from '../conversations/conversations.repository';
import { ReplyQueue } from '../conversations/conversation.service';
import { CustomersService } from '../conversations/customers.service';
import { AssistantMetrics, assistantMetrics } from '../chat-metrics';
import { AnswerWriter } from './answer-writer';

/** A replica answers a claimed message within this time, or another takes it over. */
export const REPLY_LEASE_MS = 30_000;
/** Messages still unanswered this long after they were written are claimed by the sweep (their process died, a service was down). */
const STALE_AFTER_MS = 5_000;
const SWEEP_INTERVAL_MS = 2_000;

/**
 * The assistant: answers each customer message from the account's knowledge pieces
 * (knowledge-api's search in the conversation's language), citing the piece, with
 * `message.sent` (author `assistant`) in the same transaction as the reply. A message is answered
 * once: it is claimed with a lease, and marked answered with the reply; a sweep takes over what a
 * dead process or an unreachable service left.
 */
@Injectable()
export class AssistantService implements ReplyQueue, OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly metrics: AssistantMetrics;

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly customers: CustomersService,
    private readonly writer: AnswerWriter,
    private readonly events: ChatEvents,
    @InjectLogger('assistant') private readonly logger: Logger,
    metrics: MetricsService,
    db: DataSource,
  ) {
    this.metrics = assistantMetrics(metrics, db);
  }

  answerSoon(accountId: string, conversationId: number, messageId: number, contact?: EventContact): void {
    this.track(
      this.conversations
        .claimReply(accountId, conversationId, messageId, REPLY_LEASE_MS)
        .then((claimed) => (claimed ? this.answer(claimed, contact) : undefined)),
    );
  }

  /** One sweep: claims and answers what waited too long. */
  async sweep(): Promise<number> {
    const claimed = await this.conversations.claimStaleReplies(STALE_AFTER_MS, REPLY_LEASE_MS, 20);
    await Promise.all(claimed.map((pending) => this.answer(pending)));
    return claimed.length;
  }

  private async answer(pending: PendingReply, known?: EventContact): Promise<void> {
    const requestId = randomUUID();
    const row = pending.conversation;
    const timer = this.metrics.answerDuration.startTimer();
    try {
      const reply = await this.writer.reply(row.account_id, row.lang, pending.text, requestId);
      const contact = known ?? (await this.customers.contactFor(row, requestId)).contact;
      await this.conversations.transaction(async (tx) => {
        if (!(await tx.finishReply(row.account_id, row.id, pending.id))) return;
        const message = await tx.addMessage(row.account_id, row.id, {
          author: 'assistant',
          text: reply.text,
          citation: reply.citation,
          offersPerson: reply.offersPerson,
        });
        await tx.enqueue([this.events.sent(row, contact, message as ChatMessage & { author: 'assistant' })]);
        this.logger.info(
          { request_id: requestId, conversation_id: row.id, message_id: pending.id, cited: reply.citation?.external_ref ?? null },
          reply.citation ? 'assistant answered from a piece' : 'assistant found no good match',
        );
      });
      timer?.();
    } catch (err) {
      this.metrics.answerFailures.inc();
      // The lease runs out and the sweep tries again: a service that is down delays the answer.
      this.logger.warn(
        { request_id: requestId, conversation_id: row.id, message_id: pending.id, err: (err as Error).message },
        'assistant reply failed; retried later',
      );
    }
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((err: unknown) =>
      this.logger.warn({ err: (err as Error).message }, 'assistant claim failed; retried later'),
    );
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.track(this.sweep().then(() => undefined)), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.inFlight]);
  }
}
