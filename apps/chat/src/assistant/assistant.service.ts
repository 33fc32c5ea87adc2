import { DataSource } from 'typeorm';
import { InjectLogger, MetricsService } from '@svc/platform';
import { Injectable } from '@nestjs/common';
import { Claimed, LeaseWorker } from '@svc/jobs';
import { ChatMessage, EventContact, KnowledgeSearchResult } from '@svc/contracts';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { ChatEvents } from '../conversations/chat-events';
import { ConversationRow, ConversationsRepository, PendingReply, REPLY_LEASE_MS } from '../conversations/conversations.repository';
import { ReplyQueue } from '../conversations/conversation.service';
import { CustomersService } from '../conversations/customers.service';
import { AssistantMetrics, assistantMetrics } from '../chat-metrics';
import { AnswerWriter } from './answer-writer';

/** Messages still unanswered this long after they were written are claimed by the sweep (their process died, a service was down). */
const STALE_AFTER_MS = 5_000;
const SWEEP_INTERVAL_MS = 2_000;
/** Stale messages answered at once by the sweep of one process. */
const SWEEP_BATCH = 20;

/**
 * The assistant: answers each customer message from the account's knowledge pieces
 * (knowledge-api's search in the conversation's language), citing the piece, with
 * `message.sent` (author `assistant`) in the statement that adds the reply. A message is answered
 * once: the process that wrote it holds its lease from birth, and the reply is added only while it is
 * unanswered; a sweep takes over what a dead process or an unreachable service left (a `LeaseWorker`
 * over stale messages).
 */
@Injectable()
export class AssistantService extends LeaseWorker<PendingReply> implements ReplyQueue {
  private readonly metrics: AssistantMetrics;

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly customers: CustomersService,
    private readonly writer: AnswerWriter,
    private readonly events: ChatEvents,
    @InjectLogger('assistant') logger: Logger,
    metrics: MetricsService,
    db: DataSource,
  ) {
    super(
      {
        concurrency: SWEEP_BATCH,
        batch: SWEEP_BATCH,
        pollIntervalMs: SWEEP_INTERVAL_MS,
        claimFailed: 'assistant claim failed; retried later',
        jobFailed: 'assistant claim failed; retried later',
      },
      logger,
    );
    this.metrics = assistantMetrics(metrics, db);
  }

  searchEarly(conversation: ConversationRow, text: string, requestId: string): Promise<KnowledgeSearchResult[]> {
    return this.writer.search(conversation.account_id, conversation.lang, text, requestId);
  }

  /** A message this process just wrote holds its reply lease from birth: no claim needed. */
  answerSoon(pending: PendingReply, contact: EventContact, found?: Promise<KnowledgeSearchResult[]>): void {
    this.track(this.answer(pending, contact, found));
  }

  /** Claims what waited too long (its process died, a service was down). */
  protected async claim(room: number): Promise<Claimed<PendingReply>> {
    return { jobs: await this.conversations.claimStaleReplies(STALE_AFTER_MS, REPLY_LEASE_MS, room) };
  }

  protected handle(pending: PendingReply): Promise<void> {
    return this.answer(pending);
  }

  private async answer(pending: PendingReply, known?: EventContact, found?: Promise<KnowledgeSearchResult[]>): Promise<void> {
    const requestId = randomUUID();
    const row = pending.conversation;
    const timer = this.metrics.answerDuration.startTimer();
    try {
      const reply = await this.writer.reply(row.account_id, row.lang, pending.text, requestId, found);
      const contact = known ?? (await this.customers.contactFor(row, requestId)).contact;
      const message = await this.conversations.addReply(row.account_id, row.id, pending.id, {
        author: 'assistant',
        text: reply.text,
        citation: reply.citation,
        offersPerson: reply.offersPerson,
        event: (added) => this.events.sent(row, contact, added as ChatMessage & { author: 'assistant' }),
      });
      if (message)
        this.logger.info(
          { request_id: requestId, conversation_id: row.id, message_id: pending.id, cited: reply.citation?.external_ref ?? null },
          reply.citation ? 'assistant answered from a piece' : 'assistant found no good match',
        );
      timer?.();
    } catch (err) {
      this.metrics.answerFailures.inc();
      // The sweep tries again after a growing delay: a service that is down delays the answer.
      await this.conversations.retryReplyLater(row.account_id, row.id, pending.id).catch(() => undefined);
      this.logger.warn(
        { request_id: requestId, conversation_id: row.id, message_id: pending.id, err: (err as Error).message },
        'assistant reply failed; retried later',
      );
    }
  }
}
