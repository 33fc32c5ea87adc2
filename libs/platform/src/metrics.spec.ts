import { Histogram, Registry } from 'prom-client';
import { HTTP_DURATION_BUCKETS, HttpDurationHistogram } from './metrics';

describe('http_request_duration_seconds', () => {
  it('writes exactly what a prom-client Histogram writes for the same observations', async () => {
    const observations: Array<[string, string, number, number]> = [
      ['GET', '/api/v1/whoami', 200, 0.0004],
      ['GET', '/api/v1/whoami', 200, 0.003],
      ['GET', '/api/v1/whoami', 200, 0.001],
      ['PUT', '/api/v1/contacts/:ref', 200, 0.02],
      ['PUT', '/api/v1/contacts/:ref', 429, 12],
      ['GET', '/api/v1/whoami', 401, 0.0025],
      ['GET', 'unmatched', 404, 0.3],
      ['GET', '/odd\\"route\n', 200, 1],
    ];
    const registry = new Registry();
    const reference = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status code.',
      labelNames: ['method', 'route', 'status_code'],
      buckets: HTTP_DURATION_BUCKETS,
      registers: [registry],
    });
    const histogram = new HttpDurationHistogram();
    for (const [method, route, status, seconds] of observations) {
      reference.observe({ method, route, status_code: String(status) }, seconds);
      histogram.observe(method, route, status, seconds);
    }
    const lines = (text: string) => text.trim().split('\n').sort();
    expect(lines(histogram.exposition())).toEqual(lines(await registry.metrics()));
  });

  it('counts an observation in the first bucket whose bound it does not exceed, and every bucket above', () => {
    const histogram = new HttpDurationHistogram();
    histogram.observe('GET', '/r', 200, 0.005);
    const text = histogram.exposition();
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.0025",method="GET",route="/r",status_code="200"} 0');
    expect(text).toContain('http_request_duration_seconds_bucket{le="0.005",method="GET",route="/r",status_code="200"} 1');
    expect(text).toContain('http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/r",status_code="200"} 1');
    expect(text).toContain('http_request_duration_seconds_count{method="GET",route="/r",status_code="200"} 1');
  });
});
