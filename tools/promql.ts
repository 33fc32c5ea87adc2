// PromQL for the offline checks: parse an expression (the Prometheus project's own Lezer grammar),
// list the metrics it names, and evaluate the small subset the alert rules use over samples
// scraped in a test (selectors with matchers, deriv/rate/increase over a range, sum/max/min/avg/
// count by, arithmetic, comparisons and and/or/unless). Anything else throws: a test never passes
// on an expression this evaluator does not understand.
import { parser } from '@prometheus-io/lezer-promql';

/** A node of the parse tree (Lezer's SyntaxNode, named through the parser's own types). */
type SyntaxNode = ReturnType<typeof parser.parse>['topNode'];

export type Labels = Record<string, string>;
/** One series as scraped: its labels (with `__name__`) and samples in time order (ms, value). */
export interface Series {
  labels: Labels;
  samples: Array<[number, number]>;
}
export interface Sample {
  labels: Labels;
  value: number;
}
type Value = { kind: 'scalar'; value: number } | { kind: 'vector'; samples: Sample[] };

/** How far back an instant selector looks for a sample (Prometheus's default lookback). */
const LOOKBACK_MS = 5 * 60_000;

/** Syntax errors of `expr`: empty when it parses. */
export function promqlErrors(expr: string): string[] {
  const errors: string[] = [];
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.type.isError)
        errors.push(`syntax error at ${node.from}: ${JSON.stringify(expr.slice(Math.max(0, node.from - 20), node.to + 20))}`);
    },
  });
  return errors;
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

/** `10m` → 600000. */
export function durationMs(text: string): number {
  const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)) total += Number(amount) * units[unit!]!;
  if (total === 0) throw new Error(`not a duration: ${text}`);
  return total;
}

const key = (labels: Labels): string =>
  JSON.stringify(
    Object.entries(labels)
      .filter(([name]) => name !== '__name__')
      .sort(),
  );
const withoutName = ({ __name__: _name, ...rest }: Labels): Labels => rest;

/** Evaluates `expr` at time `at` (ms) over `series`. */
export function evaluate(expr: string, series: readonly Series[], at: number): Value {
  const errors = promqlErrors(expr);
  if (errors.length > 0) throw new Error(errors.join('; '));
  const text = (node: SyntaxNode) => expr.slice(node.from, node.to);
  const children = (node: SyntaxNode): SyntaxNode[] => {
    const list: SyntaxNode[] = [];
    for (let child = node.firstChild; child; child = child.nextSibling) list.push(child);
    return list;
  };

  const select = (selector: SyntaxNode): Series[] => {
    const name = selector.getChild('Identifier');
    const matchers =
      selector
        .getChild('LabelMatchers')
        ?.getChildren('UnquotedLabelMatcher')
        .map((matcher) => {
          const label = text(matcher.getChild('LabelName')!);
          const op = matcher.getChild('MatchOp')!.firstChild!.name;
          const value = JSON.parse(text(matcher.getChild('StringLiteral')!)) as string;
          const regex = new RegExp(`^(?:${value})$`);
          return (labels: Labels) => {
            const actual = labels[label] ?? '';
            if (op === 'EqlSingle') return actual === value;
            if (op === 'Neq') return actual !== value;
            if (op === 'EqlRegex') return regex.test(actual);
            return !regex.test(actual);
          };
        }) ?? [];
    return series.filter((s) => (!name || s.labels['__name__'] === text(name)) && matchers.every((m) => m(s.labels)));
  };

  const rangeFunction = (fn: string, samples: Array<[number, number]>): number | undefined => {
    if (samples.length < 2) return undefined;
    const [t0, v0] = samples[0]!;
    const [t1] = samples.at(-1)!;
    if (fn === 'deriv') {
      const n = samples.length;
      const meanT = samples.reduce((sum, [t]) => sum + (t - t0) / 1000, 0) / n;
      const meanV = samples.reduce((sum, [, v]) => sum + v, 0) / n;
      let num = 0;
      let den = 0;
      for (const [t, v] of samples) {
        num += ((t - t0) / 1000 - meanT) * (v - meanV);
        den += ((t - t0) / 1000 - meanT) ** 2;
      }
      return den === 0 ? undefined : num / den;
    }
    // A counter's increase over the range, counting resets (a restart) as starts from zero.
    let increase = 0;
    let previous = v0;
    for (const [, v] of samples.slice(1)) {
      increase += v >= previous ? v - previous : v;
      previous = v;
    }
    if (fn === 'increase') return increase;
    if (fn === 'rate') return increase / ((t1 - t0) / 1000);
    throw new Error(`function ${fn} is not supported by this evaluator`);
  };

  const binary = (op: string, left: number, right: number): number | boolean => {
    switch (op) {
      case 'Add':
        return left + right;
      case 'Sub':
        return left - right;
      case 'Mul':
        return left * right;
      case 'Div':
        return left / right;
      case 'Gtr':
        return left > right;
      case 'Gte':
        return left >= right;
      case 'Lss':
        return left < right;
      case 'Lte':
        return left <= right;
      case 'EqlSingle':
        return left === right;
      case 'Neq':
        return left !== right;
      default:
        throw new Error(`operator ${op} is not supported by this evaluator`);
    }
  };

  const evalNode = (node: SyntaxNode): Value => {
    switch (node.name) {
      case 'PromQL':
        return evalNode(node.firstChild!);
      case 'NumberDurationLiteral':
        return { kind: 'scalar', value: Number(text(node)) };
      case 'ParenExpr':
        return evalNode(node.firstChild!);
      case 'VectorSelector': {
        const samples: Sample[] = [];
        for (const s of select(node)) {
          const last = s.samples.filter(([t]) => t <= at && t > at - LOOKBACK_MS).at(-1);
          if (last && !Number.isNaN(last[1])) samples.push({ labels: s.labels, value: last[1] });
        }
        return { kind: 'vector', samples };
      }
      case 'FunctionCall': {
        const fn = text(node.getChild('FunctionIdentifier')!);
        const [argument] = children(node.getChild('FunctionCallBody')!);
        if (argument?.name !== 'MatrixSelector') throw new Error(`${fn}() of ${argument?.name} is not supported by this evaluator`);
        const range = durationMs(text(argument.lastChild!));
        const samples: Sample[] = [];
        for (const s of select(argument.getChild('VectorSelector')!)) {
          const value = rangeFunction(
            fn,
            s.samples.filter(([t, v]) => t <= at && t > at - range && !Number.isNaN(v)),
          );
          if (value !== undefined) samples.push({ labels: withoutName(s.labels), value });
        }
        return { kind: 'vector', samples };
      }
      case 'AggregateExpr': {
        const op = node.getChild('AggregateOp')!.firstChild!.name;
        const modifier = node.getChild('AggregateModifier');
        if (modifier && !modifier.getChild('By')) throw new Error('only `by` is supported by this evaluator');
        const by = modifier?.getChild('GroupingLabels')?.getChildren('LabelName').map(text) ?? [];
        const inner = evalNode(children(node.getChild('FunctionCallBody')!)[0]!);
        if (inner.kind !== 'vector') throw new Error(`${op} of a scalar`);
        const groups = new Map<string, { labels: Labels; values: number[] }>();
        for (const sample of inner.samples) {
          const labels = Object.fromEntries(by.filter((l) => sample.labels[l] !== undefined).map((l) => [l, sample.labels[l]!]));
          const group = groups.get(key(labels)) ?? { labels, values: [] };
          group.values.push(sample.value);
          groups.set(key(labels), group);
        }
        const reduce: Record<string, (values: number[]) => number> = {
          Sum: (v) => v.reduce((a, b) => a + b, 0),
          Max: (v) => Math.max(...v),
          Min: (v) => Math.min(...v),
          Avg: (v) => v.reduce((a, b) => a + b, 0) / v.length,
          Count: (v) => v.length,
        };
        const fn = reduce[op];
        if (!fn) throw new Error(`aggregation ${op} is not supported by this evaluator`);
        return { kind: 'vector', samples: [...groups.values()].map((g) => ({ labels: g.labels, value: fn(g.values) })) };
      }
      case 'BinaryExpr': {
        const [leftNode, opNode, ...rest] = children(node);
        if (rest.some((n) => n.name === 'BoolModifier' || n.name === 'MatchingModifierClause'))
          throw new Error('bool and on/ignoring are not supported by this evaluator');
        const left = evalNode(leftNode!);
        const right = evalNode(rest.at(-1)!);
        const op = opNode!.name;
        if (op === 'And' || op === 'Or' || op === 'Unless') {
          if (left.kind !== 'vector' || right.kind !== 'vector') throw new Error(`${op} needs two vectors`);
          const rightKeys = new Set(right.samples.map((s) => key(s.labels)));
          if (op === 'And') return { kind: 'vector', samples: left.samples.filter((s) => rightKeys.has(key(s.labels))) };
          if (op === 'Unless') return { kind: 'vector', samples: left.samples.filter((s) => !rightKeys.has(key(s.labels))) };
          const leftKeys = new Set(left.samples.map((s) => key(s.labels)));
          return { kind: 'vector', samples: [...left.samples, ...right.samples.filter((s) => !leftKeys.has(key(s.labels)))] };
        }
        if (left.kind === 'scalar' && right.kind === 'scalar') {
          const result = binary(op, left.value, right.value);
          if (typeof result === 'boolean') throw new Error('a comparison of two scalars needs `bool`');
          return { kind: 'scalar', value: result };
        }
        // A vector against a scalar or a vector (one-to-one on identical labels): arithmetic
        // gives the result, a comparison keeps the left sample where it holds.
        const pairs: Array<[Sample, number]> =
          left.kind === 'vector' && right.kind === 'scalar'
            ? left.samples.map((s) => [s, right.value])
            : left.kind === 'scalar' && right.kind === 'vector'
              ? right.samples.map((s) => [{ labels: s.labels, value: left.value }, s.value])
              : (() => {
                  if (left.kind !== 'vector' || right.kind !== 'vector') throw new Error('unreachable');
                  const byKey = new Map(right.samples.map((s) => [key(s.labels), s.value]));
                  return left.samples.filter((s) => byKey.has(key(s.labels))).map((s): [Sample, number] => [s, byKey.get(key(s.labels))!]);
                })();
        const samples: Sample[] = [];
        for (const [sample, other] of pairs) {
          const result = binary(op, sample.value, other);
          if (result === true) samples.push(sample);
          else if (typeof result === 'number') samples.push({ labels: withoutName(sample.labels), value: result });
        }
        return { kind: 'vector', samples };
      }
      default:
        throw new Error(`${node.name} is not supported by this evaluator`);
    }
  };
  return evalNode(parser.parse(expr).topNode);
}

/** Parses Prometheus's text format into samples at `at` (ms): one per line, `# ` lines skipped. */
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
