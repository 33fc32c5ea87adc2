import { DataSource } from 'typeorm';
import { ApiError, InjectLogger, MetricsService } from '@svc/platform';
import { Inject, Injectable } from '@nestjs/common';
import { Claimed, LeaseWorker } from '@svc/jobs';
import { ChatMessage, EventContact, KnowledgeSearchResult } from '@svc/contracts';
import type { Logger } from 'pino';
import { randomUUID } from 'node:crypto';
import { ChatEvents } from '../conversations/chat-events';
import { ConversationRow, ConversationsRepository, PendingReply, REPLY_LEASE_MS } from '../conversations/conversations.repository';
import { ReplyQueue } from '../conversations/conversation.service';
import { CustomersService } from '../conversations/customers.service';
import { AssistantMetrics, assistantMetrics } from '../chat-metrics';
import { CHAT_CONFIG, ChatConfig } from '../chat.config';
import { textsFor } from '../texts/texts';
import { AnswerWriter } from './answer-writer';
import { Reply } from './assistant-rules';

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
 * over stale messages). After `ASSISTANT_REPLY_TRIES` failed tries (or a question the search refuses,
 * which no retry mends) it stops and says it could not answer, offering a person.
 */
@Injectable()
export class AssistantService extends LeaseWorker<PendingReply> implements ReplyQueue {
  private readonly metrics: AssistantMetrics;
  private readonly tries: number;

  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly customers: CustomersService,
    private readonly writer: AnswerWriter,
    private readonly events: ChatEvents,
    @InjectLogger('assistant') logger: Logger,
    metrics: MetricsService,
    db: DataSource,
    @Inject(CHAT_CONFIG) config: Pick<ChatConfig, 'ASSISTANT_REPLY_TRIES'>,
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
    this.tries = config.ASSISTANT_REPLY_TRIES;
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
    if ((pending.failures ?? 0) >= this.tries) return this.giveUp(pending, known, requestId);
    const timer = this.metrics.answerDuration.startTimer();
    try {
      const reply = await this.writer.reply(row.account_id, row.lang, pending.text, requestId, found);
      const message = await this.write(pending, reply, known, requestId);
      if (message)
        this.logger.info(
          { request_id: requestId, conversation_id: row.id, message_id: pending.id, cited: reply.citation?.external_ref ?? null },
          reply.citation ? 'assistant answered from a piece' : 'assistant found no good match',
        );
      timer?.();
    } catch (err) {
      this.metrics.answerFailures.inc();
      // The sweep tries again after a growing delay: a service that is down delays the answer, up to ASSISTANT_REPLY_TRIES tries.
      const failures = await this.conversations.retryReplyLater(row.account_id, row.id, pending.id).catch(() => undefined);
      // A question the search refuses (a 4xx) is refused again at every try.
      const refused = err instanceof ApiError && err.code !== 'unavailable';
      const log = { request_id: requestId, conversation_id: row.id, message_id: pending.id, failures, err: (err as Error).message };
      if (failures === undefined || (failures < this.tries && !refused)) {
        this.logger.warn(log, 'assistant reply failed; retried later');
        return;
      }
      this.logger.warn(log, 'assistant reply failed; not retried');
      await this.giveUp({ ...pending, failures }, known, requestId);
    }
  }

  /** The tries ran out: the assistant says it could not answer and offers a person (like a question it found nothing for). */
  private async giveUp(pending: PendingReply, known: EventContact | undefined, requestId: string): Promise<void> {
    const row = pending.conversation;
    const reply: Reply = { text: textsFor(row.lang).no_answer, citation: null, offersPerson: true };
    try {
      const message = await this.write(pending, reply, known, requestId);
      if (message)
        this.logger.warn(
          { request_id: requestId, conversation_id: row.id, message_id: pending.id, failures: pending.failures },
          'assistant could not answer; offered a person',
        );
    } catch (err) {
      // Still pending: the sweep writes it later.
      await this.conversations.retryReplyLater(row.account_id, row.id, pending.id).catch(() => undefined);
      this.logger.warn(
        { request_id: requestId, conversation_id: row.id, message_id: pending.id, err: (err as Error).message },
        'assistant could not write that it could not answer; retried later',
      );
    }
  }

  /** Adds the reply to a pending message with its `message.sent`; undefined when another process answered it first. */
  private async write(pending: PendingReply, reply: Reply, known: EventContact | undefined, requestId: string) {
    const row = pending.conversation;
    const contact = known ?? (await this.customers.contactFor(row, requestId)).contact;
    return this.conversations.addReply(row.account_id, row.id, pending.id, {
      author: 'assistant',
      text: reply.text,
      citation: reply.citation,
      offersPerson: reply.offersPerson,
      event: (added) => this.events.sent(row, contact, added as ChatMessage & { author: 'assistant' }),
    });
  }
}
