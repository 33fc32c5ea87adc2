// The alert rules through Prometheus's own promtool: they load, the dashboard's queries parse, and
// the unit tests beside them (k8s/components/monitoring/prometheus-rules.test.yaml) pass.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { MONITORING, promtool, ruleGroups } from './prometheus';

interface RuleTests {
  tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
}
const fixtures = parse(readFileSync(join(MONITORING, 'prometheus-rules.test.yaml'), 'utf8')) as RuleTests;
const groups = ruleGroups();
const alerts = groups.flatMap((g) => g.rules?.map((r) => r.alert) ?? []);

describe('alert rules (promtool)', () => {
  it('loads every rule with `promtool check rules`', () => {
    expect(alerts.length).toBeGreaterThan(5);
    expect(promtool(groups)).toEqual({ ok: true, output: expect.stringContaining(`SUCCESS: ${alerts.length} rules found`) });
  });

  it('parses every dashboard query (checked as recording rules)', () => {
    const dashboard = JSON.parse(readFileSync(join(MONITORING, 'dashboard.json'), 'utf8')) as {
      panels: Array<{ targets: Array<{ expr: string }> }>;
    };
    const rules = dashboard.panels.flatMap((p) => p.targets).map((t, i) => ({ record: `dashboard:query_${i}`, expr: t.expr }));
    expect(rules.length).toBeGreaterThan(10);
    expect(promtool([{ name: 'dashboard', rules }])).toEqual({ ok: true, output: expect.stringContaining('SUCCESS') });
  });

  it('passes the unit tests beside the rules, which see every alert fire', () => {
    const run = promtool(groups, [fixtures]);
    expect(run.output).toContain('SUCCESS');
    expect(run.ok).toBe(true);
    const firing = new Set(
      fixtures.tests
        .flatMap((t) => t.alert_rule_test ?? [])
        .filter((a) => a.exp_alerts.length > 0)
        .map((a) => a.alertname),
    );
    expect(alerts.filter((alert) => !firing.has(alert!))).toEqual([]);
  });

  it('fails on a test whose expectation does not hold', () => {
    const wrong = {
      tests: [
        {
          interval: '1m',
          input_series: [{ series: 'consumer_parked_messages{queue="q"}', values: '0x5' }],
          alert_rule_test: [{ eval_time: '5m', alertname: 'SvcChatMessagesParked', exp_alerts: [{ exp_labels: { queue: 'q' } }] }],
        },
      ],
    };
    expect(promtool(groups, [wrong])).toEqual({ ok: false, output: expect.stringContaining('FAILED') });
  });
});
