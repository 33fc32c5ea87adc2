import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** One sample of a gauge read on scrape: its labels (bounded sets only) and value. */
export interface GaugeSample<L extends string> {
  labels?: Partial<Record<L, string>>;
  value: number;
}

/** How long a gauge read on scrape may take before the scrape goes on without it. */
export const SCRAPE_READ_TIMEOUT_MS = 2_000;

/** Buckets (seconds) for work that takes from a millisecond to a minute: handling, sends, lags. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The app's Prometheus registry: conventional names, and no label ever carries an id. */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  /** Gauges read on scrape that failed or timed out (the scrape then has no sample of them). */
  readonly scrapeReadFailures = new Counter({
    name: 'metrics_scrape_read_failures_total',
    help: 'Gauges read on scrape (a SQL count, a queue depth) that failed or took longer than their timeout, by gauge.',
    labelNames: ['gauge'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** One response, labelled by its route pattern (never the raw URL: bounded labels). */
  observe(method: string, route: string | undefined, statusCode: number, durationMs: number): void {
    this.httpDuration.observe({ method, route: route ?? 'unmatched', status_code: String(statusCode) }, durationMs / 1000);
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return (
      (this.registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames, registers: [this.registry] })
    );
  }

  histogram<L extends string>(name: string, help: string, labelNames: readonly L[] = [], buckets = LATENCY_BUCKETS): Histogram<L> {
    return (
      (this.registry.getSingleMetric(name) as Histogram<L> | undefined) ??
      new Histogram({ name, help, labelNames, buckets, registers: [this.registry] })
    );
  }

  gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
    return (
      (this.registry.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge({ name, help, labelNames, registers: [this.registry] })
    );
  }

  /** A gauge `read` on each scrape within `timeoutMs`; a failed or late read leaves no sample, never a stale one. */
  scrapedGauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: () => Promise<Array<GaugeSample<L>>>,
    timeoutMs = SCRAPE_READ_TIMEOUT_MS,
  ): Gauge<L> {
    const failures = this.scrapeReadFailures;
    return new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        let timer: NodeJS.Timeout | undefined;
        try {
          const samples = await Promise.race([
            read(),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error('timed out')), timeoutMs);
            }),
          ]);
          for (const sample of samples) {
            if (sample.labels) this.set(sample.labels, sample.value);
            else this.set(sample.value);
          }
        } catch {
          failures.inc({ gauge: name });
          // A gauge without labels cannot be absent from a scrape: NaN, never a stale or made-up value.
          if (labelNames.length === 0) this.set(NaN);
        } finally {
          clearTimeout(timer);
        }
      },
    });
  }
}

/** The status class of an HTTP status (`2xx` … `5xx`), or `error` when no response came: a bounded label. */
export function statusClass(statusCode: number | null | undefined): string {
  return statusCode && statusCode >= 100 && statusCode < 600 ? `${Math.floor(statusCode / 100)}xx` : 'error';
}
