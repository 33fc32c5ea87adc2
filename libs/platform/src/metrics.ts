import { Controller, Get, Header, Injectable } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from './public';
import { collectDefaultMetrics, Registry } from 'prom-client';

const HTTP_DURATION = 'http_request_duration_seconds';
export const HTTP_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The observations of one label set: a count per bucket (the last one is +Inf), their sum and number. */
interface Series {
  labels: string;
  counts: number[];
  sum: number;
  count: number;
}

/** A label value in the text format: backslash, double quote and newline escaped. */
function labelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/**
 * `http_request_duration_seconds{method,route,status_code}`, the Prometheus histogram of every
 * response, kept here rather than in a prom-client Histogram: that one validated, hashed and
 * copied its labels on every observation, a visible share of a gateway call; here an observation
 * is three map lookups and two additions. Written in the text format prom-client writes (`le`
 * first, then `_sum` and `_count`, one label set after the other).
 */
export class HttpDurationHistogram {
  /** route → status → method → series: the keys are the strings and numbers of each call, no key is built. */
  private readonly series = new Map<string, Map<number, Map<string, Series>>>();

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    let byStatus = this.series.get(route);
    if (!byStatus) this.series.set(route, (byStatus = new Map()));
    let byMethod = byStatus.get(statusCode);
    if (!byMethod) byStatus.set(statusCode, (byMethod = new Map()));
    let series = byMethod.get(method);
    if (!series) {
      series = { labels: `method="${labelValue(method)}",route="${labelValue(route)}",status_code="${statusCode}"`, counts: new Array<number>(HTTP_DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
      byMethod.set(method, series);
    }
    let bucket = 0;
    while (bucket < HTTP_DURATION_BUCKETS.length && seconds > (HTTP_DURATION_BUCKETS[bucket] as number)) bucket += 1;
    series.counts[bucket] = (series.counts[bucket] as number) + 1;
    series.sum += seconds;
    series.count += 1;
  }

  /** The histogram in the Prometheus text format. */
  exposition(): string {
    const lines = [`# HELP ${HTTP_DURATION} HTTP requests by method, route pattern and status code.`, `# TYPE ${HTTP_DURATION} histogram`];
    for (const byStatus of this.series.values()) {
      for (const byMethod of byStatus.values()) {
        for (const { labels, counts, sum, count } of byMethod.values()) {
          let cumulative = 0;
          counts.forEach((n, i) => {
            cumulative += n;
            const le = i < HTTP_DURATION_BUCKETS.length ? String(HTTP_DURATION_BUCKETS[i]) : '+Inf';
            lines.push(`${HTTP_DURATION}_bucket{le="${le}",${labels}} ${cumulative}`);
          });
          lines.push(`${HTTP_DURATION}_sum{${labels}} ${sum}`, `${HTTP_DURATION}_count{${labels}} ${count}`);
        }
      }
    }
    return `${lines.join('\n')}\n`;
  }
}

@Injectable()
export class MetricsService {
  /** Node's process metrics (prom-client); an app may register its own metrics here too. */
  readonly registry = new Registry();
  readonly httpDuration = new HttpDurationHistogram();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** One response, labelled by its route pattern (never the raw URL: bounded labels). */
  observe(method: string, route: string | undefined, statusCode: number, durationMs: number): void {
    this.httpDuration.observe(method, route ?? 'unmatched', statusCode, durationMs / 1000);
  }

  /** Everything, in the Prometheus text format. */
  async scrape(): Promise<string> {
    return `${await this.registry.metrics()}\n${this.httpDuration.exposition()}`;
  }
}

@Public()
@ApiExcludeController()
@Controller()
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  scrape(): Promise<string> {
    return this.metrics.scrape();
  }
}
