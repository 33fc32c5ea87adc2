import { MetricsService, statusClass } from './metrics.service';

describe('MetricsService', () => {
  it('reads a scraped gauge on each scrape, with its labels', async () => {
    const metrics = new MetricsService();
    let depth = 3;
    metrics.scrapedGauge('queue_depth', 'Depth.', ['queue'], async () => [{ labels: { queue: 'a' }, value: depth }]);
    expect(await metrics.registry.metrics()).toContain('queue_depth{queue="a"} 3');
    depth = 7;
    expect(await metrics.registry.metrics()).toContain('queue_depth{queue="a"} 7');
  });

  it('reports NaN for a gauge (never a stale value), and counts it, when its read fails or is late', async () => {
    const metrics = new MetricsService();
    let fail = false;
    metrics.scrapedGauge(
      'slow_gauge',
      'Slow.',
      [],
      () => (fail ? new Promise<never>(() => undefined) : Promise.resolve([{ value: 1 }])),
      20,
    );
    expect(await metrics.registry.metrics()).toMatch(/^slow_gauge 1$/m);
    fail = true;
    const text = await metrics.registry.metrics();
    // prom-client writes NaN as `Nan` (Prometheus reads it case-insensitively).
    expect(text).toMatch(/^slow_gauge nan$/im);
    // The registry writes its metrics side by side: the count shows from the next scrape on.
    expect(await metrics.registry.metrics()).toMatch(/^metrics_scrape_read_failures_total{gauge="slow_gauge"} [12]$/m);
  });

  it('gives the same counter for the same name (one per registry)', () => {
    const metrics = new MetricsService();
    expect(metrics.counter('x_total', 'X.')).toBe(metrics.counter('x_total', 'X.'));
  });

  it('names status classes with a bounded set of values', () => {
    expect([200, 302, 404, 503, null, 0].map(statusClass)).toEqual(['2xx', '3xx', '4xx', '5xx', 'error', 'error']);
  });
});
