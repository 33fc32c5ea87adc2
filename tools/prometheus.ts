// The alert rules for the offline checks: Prometheus's own promtool runs them (check, unit tests),
// the Prometheus project's Lezer grammar lists the metrics an expression names, and a scrape's
// text is read into samples.
import type { IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { parser } from '@prometheus-io/lezer-promql';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { root } from './deploy-checks';

export const MONITORING = join(root, 'k8s', 'components', 'monitoring');
export type RuleGroup = NonNullable<IPrometheusRule['spec']['groups']>[number];
export type Labels = Record<string, string>;

/** The rule groups of the PrometheusRule (the one source of the alerts). */
export function ruleGroups(): RuleGroup[] {
  return parseAllDocuments(readFileSync(join(MONITORING, 'prometheus-rules.yaml'), 'utf8'))
    .map((d) => d.toJS() as IPrometheusRule)
    .flatMap((r) => r.spec.groups ?? []);
}

/**
 * Runs promtool with `groups` written as `rules.yaml` and `tests` (promtool's unit-test documents,
 * their `rule_files` set to it) as `test-N.yaml` in a temporary folder: `promtool check rules`
 * without tests, `promtool test rules` with them.
 */
export function promtool(groups: RuleGroup[], tests: object[] = []): { ok: boolean; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'promtool-'));
  try {
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups }));
    const files = tests.map((test, i) => {
      writeFileSync(join(dir, `test-${i}.yaml`), stringify({ ...test, rule_files: ['rules.yaml'] }));
      return `test-${i}.yaml`;
    });
    const args = files.length > 0 ? ['test', 'rules', ...files] : ['check', 'rules', 'rules.yaml'];
    const run = spawnSync('promtool', args, { cwd: dir, encoding: 'utf8' });
    if (run.error) throw new Error(`promtool: ${run.error.message} (scripts/install-test-tools.sh installs it)`);
    return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The metric names of every selector in `expr`. */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.name === 'VectorSelector') {
        const identifier = node.node.getChild('Identifier');
        if (identifier) names.add(expr.slice(identifier.from, identifier.to));
      }
    },
  });
  return [...names].sort();
}

/** Parses Prometheus's text format into samples: one per line, `# ` lines skipped. */
export function parseExposition(text: string): Array<{ labels: Labels; value: number }> {
  const samples: Array<{ labels: Labels; value: number }> = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) throw new Error(`not an exposition line: ${line}`);
    const labels: Labels = { __name__: match[1]! };
    for (const [, name, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[name!] = JSON.parse(`"${value}"`) as string;
    samples.push({ labels, value: Number(match[3]!.toLowerCase() === 'nan' ? NaN : match[3]) });
  }
  return samples;
}

/** The metric families an exposition declares (`# TYPE name kind`), with the series names each yields. */
export function exposedMetricNames(text: string): string[] {
  const names = new Set<string>();
  for (const [, name, kind] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    if (kind === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return [...names].sort();
}
