import { evaluate, exposedMetricNames, metricNames, parseExposition, promqlErrors, Series } from './promql';

const MIN = 60_000;
const due = (values: number[], labels: Record<string, string> = {}): Series => ({
  labels: { __name__: 'webhook_deliveries_due', ...labels },
  samples: values.map((v, i) => [i * MIN, v]),
});

describe('PromQL checks', () => {
  it('finds syntax errors and the metrics an expression names', () => {
    expect(promqlErrors('max(a) > 0 and max(deriv(b[10m])) > 0')).toEqual([]);
    expect(promqlErrors('max(a > ')).not.toEqual([]);
    expect(promqlErrors('sum by (app (rate(x[5m]))')).not.toEqual([]);
    expect(metricNames('sum(rate(x_total{a="b"}[5m])) / sum(rate(y_count[5m]))')).toEqual(['x_total', 'y_count']);
  });

  it('evaluates a growing backlog as true and a flat or shrinking one as false', () => {
    const expr = 'max(webhook_deliveries_due) > 0 and max(deriv(webhook_deliveries_due[10m])) > 0';
    const at = 9 * MIN;
    expect(evaluate(expr, [due([0, 2, 4, 6, 8, 10, 12, 14, 16, 18])], at)).toEqual({
      kind: 'vector',
      samples: [{ labels: {}, value: 18 }],
    });
    expect(evaluate(expr, [due([5, 5, 5, 5, 5, 5, 5, 5, 5, 5])], at)).toEqual({ kind: 'vector', samples: [] });
    expect(evaluate(expr, [due([18, 16, 14, 12, 10, 8, 6, 4, 2, 1])], at)).toEqual({ kind: 'vector', samples: [] });
    // Two replicas report the same backlog: max, not sum.
    expect(evaluate('max(webhook_deliveries_due)', [due([1, 3], { pod: 'a' }), due([1, 3], { pod: 'b' })], MIN)).toEqual({
      kind: 'vector',
      samples: [{ labels: {}, value: 3 }],
    });
  });

  it('evaluates rates, ratios and matchers like Prometheus for counters', () => {
    const requests = (status: string, values: number[]): Series => ({
      labels: { __name__: 'http_request_duration_seconds_count', app: 'gateway', status_code: status },
      samples: values.map((v, i) => [i * MIN, v]),
    });
    const series = [requests('200', [0, 600, 1200]), requests('503', [0, 60, 120])];
    const ratio =
      'sum(rate(http_request_duration_seconds_count{status_code=~"5.."}[5m])) / sum(rate(http_request_duration_seconds_count[5m]))';
    const result = evaluate(ratio, series, 2 * MIN);
    expect(result.kind === 'vector' && result.samples[0]!.value).toBeCloseTo(120 / 1320);
    expect(evaluate(`${ratio} > (14.4 * 0.001)`, series, 2 * MIN)).toEqual({
      kind: 'vector',
      samples: [expect.objectContaining({ labels: {} })],
    });
    expect(() => evaluate('histogram_quantile(0.99, x)', series, 0)).toThrow(/not supported/);
  });

  it('reads the exposition format', () => {
    const text = '# HELP a_total A.\n# TYPE a_total counter\na_total{queue="x"} 3\n# TYPE h histogram\nh_bucket{le="+Inf"} 1\ng Nan\n';
    expect(parseExposition(text)).toEqual([
      { labels: { __name__: 'a_total', queue: 'x' }, value: 3 },
      { labels: { __name__: 'h_bucket', le: '+Inf' }, value: 1 },
      { labels: { __name__: 'g' }, value: NaN },
    ]);
    expect(exposedMetricNames(text)).toEqual(['a_total', 'h', 'h_bucket', 'h_count', 'h_sum']);
  });
});
