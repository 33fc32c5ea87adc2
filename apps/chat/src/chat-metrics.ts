import { Injectable, OnModuleInit } from '@nestjs/common';
import { scrapeQuery } from '@svc/persistence';
import { MetricsService } from '@svc/platform';
import type { Counter, Histogram } from 'prom-client';
import { DataSource } from 'typeorm';
import { StreamService } from './stream/stream.service';

export interface AssistantMetrics {
  answerDuration: Histogram<string>;
  answerFailures: Counter<string>;
}

/** Customer messages counted on scrape at most. */
const PENDING_CAP = 100_000;

/** Streams connected and conversations open (a visitor has at least one stream on it): this process's own (sum over replicas). */
@Injectable()
export class StreamGauges implements OnModuleInit {
  constructor(
    private readonly metrics: MetricsService,
    private readonly streams: StreamService,
  ) {}

  onModuleInit(): void {
    this.metrics.scrapedGauge('chat_streams_connected', 'Event streams (SSE) connected to this replica.', [], async () => [
      { value: this.streams.openStreams },
    ]);
    this.metrics.scrapedGauge(
      'chat_conversations_open',
      'Conversations with at least one visitor stream connected to this replica.',
      [],
      async () => [{ value: this.streams.openConversations }],
    );
  }
}

/** The assistant's metrics; replies pending are read on scrape from the partial index on messages awaiting an answer. */
export function assistantMetrics(metrics: MetricsService, db: DataSource): AssistantMetrics {
  metrics.scrapedGauge(
    'chat_replies_pending',
    'Customer messages the assistant has not answered yet (counted up to 100000).',
    [],
    async () => {
      const [row] = await scrapeQuery<{ n: number }>(
        db,
        `SELECT count(*)::int AS n FROM (SELECT 1 FROM chat.messages WHERE reply_pending LIMIT ${PENDING_CAP}) m`,
      );
      return [{ value: row?.n ?? 0 }];
    },
  );
  return {
    answerDuration: metrics.histogram(
      'chat_assistant_answer_duration_seconds',
      "Time the assistant took to answer a customer's message once claimed: knowledge search, the reply, and its commit.",
    ),
    answerFailures: metrics.counter(
      'chat_assistant_answer_failures_total',
      'Answers that failed (a service down); the message is answered by a later sweep.',
    ),
  };
}
