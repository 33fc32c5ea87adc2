import { Inject, Injectable } from '@nestjs/common';
import { scrapeQuery } from '@svc/persistence';
import { MetricsService, statusClass } from '@svc/platform';
import type { Counter, Histogram } from 'prom-client';
import { DataSource } from 'typeorm';

/** Deliveries counted on scrape at most, per gauge (past it the alerts are long on). */
export const DELIVERY_COUNT_CAP = 100_000;

/**
 * The dispatcher's metrics. Deliveries due (pending, time come, not leased) and in flight (leased
 * to a worker now) are read on scrape from the partial index on pending deliveries: they are the
 * same for every replica (alerts and dashboards take the max). Attempts are counted where they
 * are made.
 */
@Injectable()
export class DeliveryMetrics {
  /** By outcome (delivered, retry, failed) and status class (2xx … 5xx, or error: no response). */
  readonly attemptDuration: Histogram<'outcome' | 'status_class'>;
  readonly retriesScheduled: Counter<string>;
  readonly failed: Counter<string>;

  constructor(metrics: MetricsService, @Inject(DataSource) db: DataSource) {
    const count = async (where: string) => {
      const [row] = await scrapeQuery<{ n: number }>(
        db,
        `SELECT count(*)::int AS n FROM (SELECT 1 FROM webhooks.deliveries WHERE status = 'pending' AND ${where} LIMIT ${DELIVERY_COUNT_CAP}) d`,
      );
      return [{ value: row?.n ?? 0 }];
    };
    metrics.scrapedGauge(
      'webhook_deliveries_due',
      'Deliveries whose attempt is due and that no worker holds (counted up to 100000): the backlog.',
      [],
      () => count('next_attempt_at <= now() AND (locked_until IS NULL OR locked_until <= now())'),
    );
    metrics.scrapedGauge('webhook_deliveries_in_flight', 'Deliveries leased to a worker for an attempt now, across all replicas.', [], () =>
      count('locked_until > now()'),
    );
    this.attemptDuration = metrics.histogram(
      'webhook_attempt_duration_seconds',
      'Webhook attempts by outcome (delivered, retry, failed) and status class (2xx … 5xx; error: no response).',
      ['outcome', 'status_class'],
    );
    this.retriesScheduled = metrics.counter(
      'webhook_retries_scheduled_total',
      'Failed attempts after which another attempt was scheduled.',
    );
    this.failed = metrics.counter(
      'webhook_deliveries_failed_total',
      'Deliveries given up after the last attempt of the retry schedule failed.',
    );
  }
}

/** Records one attempt's result. */
export function recordAttempt(
  metrics: DeliveryMetrics | undefined,
  outcome: 'delivered' | 'retry' | 'failed',
  statusCode: number | null,
  durationMs: number,
): void {
  if (!metrics) return;
  metrics.attemptDuration.observe({ outcome, status_class: statusClass(statusCode) }, durationMs / 1000);
  if (outcome === 'retry') metrics.retriesScheduled.inc();
  if (outcome === 'failed') metrics.failed.inc();
}
