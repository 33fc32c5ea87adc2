import { MetricsService } from '@svc/platform';
import { scrapeQuery } from '@svc/persistence';
import type { Counter, Histogram } from 'prom-client';
import { DataSource } from 'typeorm';
import type { AmqpClient } from './amqp-client';
import { countParked } from './parked';

/** Unsent rows counted on scrape at most: past it the gauge reads this (the alert is long on by then). */
export const OUTBOX_COUNT_CAP = 100_000;

export interface RelayMetrics {
  publishDuration: Histogram<string>;
  published: Counter<string>;
}

/** A schema's outbox and relay: unsent rows, the oldest's age, publish-to-confirm time, messages published. */
export function relayMetrics(metrics: MetricsService, db: DataSource, schema: string): RelayMetrics {
  const read = async () => {
    const [row] = await scrapeQuery<{ pending: number; age: number }>(
      db,
      `SELECT (SELECT count(*) FROM (SELECT 1 FROM "${schema}".outbox WHERE sent_at IS NULL LIMIT ${OUTBOX_COUNT_CAP}) p)::int AS pending,
              coalesce((SELECT extract(epoch FROM now() - created_at) FROM "${schema}".outbox WHERE sent_at IS NULL ORDER BY seq LIMIT 1), 0)::float8 AS age`,
    );
    return row ?? { pending: 0, age: 0 };
  };
  metrics.scrapedGauge(
    'outbox_messages_pending',
    'Messages in the outbox not yet published to RabbitMQ (counted up to 100000).',
    [],
    async () => [{ value: (await read()).pending }],
  );
  metrics.scrapedGauge(
    'outbox_oldest_message_age_seconds',
    'Age of the oldest unpublished outbox message (0 when the outbox is empty).',
    [],
    async () => [{ value: (await read()).age }],
  );
  return {
    publishDuration: metrics.histogram(
      'outbox_publish_duration_seconds',
      'Time from publishing a batch of outbox messages to the broker confirming all of them.',
    ),
    published: metrics.counter('outbox_messages_published_total', 'Outbox messages published and confirmed by the broker.'),
  };
}

/** What a consumer's handling of a message ends in: acked, retried later, or parked (can never succeed). */
export type HandlingOutcome = 'handled' | 'transient' | 'poison';

export interface ConsumerMetrics {
  handlingDuration: Histogram<'queue' | 'outcome'>;
  failures: Counter<'queue' | 'kind'>;
}

/** A process's consumers: handling time, failures by kind (`transient` retried, `poison` parked), parking queue depth. */
export function consumerMetrics(metrics: MetricsService, client: AmqpClient, queues: readonly string[]): ConsumerMetrics {
  metrics.scrapedGauge(
    'consumer_parked_messages',
    'Messages in the parking queue of a consumer queue: they can never succeed as they are (admin parked show/replay).',
    ['queue'],
    async () => {
      const model = client.connection;
      if (!model) throw new Error('RabbitMQ is not connected');
      return (await countParked(model, queues))
        .filter((c) => c.messages !== null)
        .map((c) => ({ labels: { queue: c.queue }, value: c.messages ?? 0 }));
    },
  );
  return {
    handlingDuration: metrics.histogram(
      'consumer_handling_duration_seconds',
      'Time a consumer took with a message, by queue and outcome (handled, transient, poison).',
      ['queue', 'outcome'],
    ),
    failures: metrics.counter(
      'consumer_failures_total',
      'Messages whose handling failed, by queue and kind: transient (retried after a delay) or poison (parked).',
      ['queue', 'kind'],
    ),
  };
}
