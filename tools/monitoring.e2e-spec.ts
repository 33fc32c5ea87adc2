// The monitoring against the running apps: every metric an alert rule or a dashboard panel names is
// exported by the code (a scrape of each app's /metrics), and the webhook-backlog alert's
// expression turns true over samples scraped while the dispatcher's receiver stops answering.
import type { IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { sampleEventData } from '@svc/contracts';
import { domainMessage, enqueueDomainMessages } from '@svc/messaging';
import { createTestCa, feedEvents, HttpsReceiver, sampleEvent, Stack, startStack, TestCa } from '@svc/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseAllDocuments } from 'yaml';
import { root } from './deploy-checks';
import { evaluate, exposedMetricNames, metricNames, parseExposition, Series } from './promql';

const MONITORING = join(root, 'k8s', 'components', 'monitoring');
const rules = parseAllDocuments(readFileSync(join(MONITORING, 'prometheus-rules.yaml'), 'utf8'))
  .map((d) => d.toJS() as IPrometheusRule)
  .flatMap((r) => r.spec.groups?.flatMap((g) => g.rules ?? []) ?? []);
const panels = (
  JSON.parse(readFileSync(join(MONITORING, 'dashboard.json'), 'utf8')) as { panels: Array<{ targets: Array<{ expr: string }> }> }
).panels;
const backlogRule = rules.find((r) => r.alert === 'SvcChatWebhookBacklogGrowing')!;
/** Metrics of kube-state-metrics (the cluster's), not of the apps. */
const CLUSTER_METRIC = /^kube_/;
const PER_ENDPOINT = 2;

describe('monitoring: alerts and panels against the running apps', () => {
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let stack: Stack;

  beforeAll(async () => {
    ca = createTestCa();
    receiver = await HttpsReceiver.start(ca);
    stack = await startStack(['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher', 'chat'], {
      appEnv: {
        'webhook-dispatcher': {
          WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          WEBHOOK_CA_FILE: ca.caFile,
          WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s',
          WEBHOOK_TIMEOUT_MS: '20000',
          WEBHOOK_POLL_INTERVAL_MS: '200',
          WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(PER_ENDPOINT),
        },
      },
    });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver?.close();
    ca?.remove();
  });

  const scrape = async (url: string): Promise<string> => {
    const response = await fetch(`${url}/metrics`);
    expect(response.status).toBe(200);
    return response.text();
  };

  it('exports every metric an alert or a panel names (kube-state-metrics aside)', async () => {
    const exported = new Set<string>();
    for (const app of [stack.gateway, ...Object.values(stack.services)])
      for (const name of exposedMetricNames(await scrape(app.internalUrl))) exported.add(name);
    const named = new Set([
      ...rules.flatMap((r) => metricNames(String(r.expr))),
      ...panels.flatMap((p) => p.targets.flatMap((t) => metricNames(t.expr))),
    ]);
    const missing = [...named].filter((name) => !CLUSTER_METRIC.test(name) && !exported.has(name));
    expect(named.size).toBeGreaterThan(15);
    expect(missing).toEqual([]);
  });

  it('reports deliveries due rising when the receiver stops answering, and the backlog alert evaluates true over the scraped samples', async () => {
    const dispatcher = stack.services['webhook-dispatcher']!;
    const secret = stack.env['INTERNAL_AUTH_SECRET']!;
    const account = await stack.newAccount();
    const created = await stack.call('/webhooks', { method: 'POST', key: account.key, json: { url: receiver.url('/stopped') } });
    expect(created.status).toBe(201);
    const series = new Map<string, Series>();
    const record = async () => {
      const at = Date.now();
      for (const sample of parseExposition(await scrape(dispatcher.internalUrl))) {
        if (!sample.labels['__name__']!.startsWith('webhook_')) continue;
        const key = JSON.stringify(sample.labels);
        const entry = series.get(key) ?? { labels: { ...sample.labels, app: 'webhook-dispatcher' }, samples: [] };
        entry.samples.push([at, sample.value]);
        series.set(key, entry);
      }
      return at;
    };
    const dueAt = (at: number) => evaluate('max(webhook_deliveries_due)', [...series.values()], at);
    const fires = (at: number) => evaluate(String(backlogRule.expr), [...series.values()], at);

    // Before: nothing due, the alert's expression is false.
    let at = 0;
    for (let i = 0; i < 3; i++) {
      at = await record();
      await sleep(300);
    }
    expect(dueAt(at)).toEqual({ kind: 'vector', samples: [{ labels: {}, value: 0 }] });
    expect(fires(at)).toEqual({ kind: 'vector', samples: [] });

    // The receiver stops answering: attempts hang, the endpoint's cap is reached, new events wait.
    receiver.respond('/stopped', { delayMs: 60_000 });
    const dues: number[] = [];
    for (let round = 0; round < 8; round++) {
      await feedEvents(dispatcher.url, secret, account.accountId, [sampleEvent(), sampleEvent(), sampleEvent()]);
      await sleep(400);
      at = await record();
      const due = dueAt(at);
      dues.push(due.kind === 'vector' ? (due.samples[0]?.value ?? NaN) : NaN);
    }
    expect(receiver.received('/stopped').length).toBeLessThanOrEqual(PER_ENDPOINT);
    // 24 events, at most PER_ENDPOINT in flight: the rest are due, and the count only grew.
    expect(dues.at(-1)).toBe(24 - PER_ENDPOINT);
    expect(dues.every((value, i) => i === 0 || value >= dues[i - 1]!)).toBe(true);
    expect(fires(at)).toEqual({ kind: 'vector', samples: [{ labels: {}, value: 24 - PER_ENDPOINT }] });
    const inFlight = evaluate('max(webhook_deliveries_in_flight)', [...series.values()], at);
    expect(inFlight).toEqual({ kind: 'vector', samples: [{ labels: {}, value: PER_ENDPOINT }] });
  }, 60_000);

  it('moves the pipeline counters: published from an outbox, appended with a feed lag, attempts by outcome and status class, retries', async () => {
    const account = await stack.newAccount();
    const value = (text: string, name: string, labels: Record<string, string> = {}) =>
      parseExposition(text)
        .filter((s) => s.labels['__name__'] === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((sum, s) => sum + s.value, 0);
    receiver.respond('/failing', { status: 503 });
    for (const path of ['/answering', '/failing']) {
      expect((await stack.call('/webhooks', { method: 'POST', key: account.key, json: { url: receiver.url(path) } })).status).toBe(201);
    }
    // An event committed in the chat's outbox (as the chat does) → its relay → events-api's feed →
    // a delivery to each endpoint.
    await enqueueDomainMessages(stack.dataSource, 'chat', [
      domainMessage('handover.created', account.accountId, sampleEventData('handover.created', { n: 1 })),
    ]);
    await receiver.waitFor('/answering', 1, 30_000);
    await receiver.waitFor('/failing', 2, 30_000);
    const chat = await scrape(stack.services['chat']!.internalUrl);
    expect(value(chat, 'outbox_messages_published_total')).toBeGreaterThanOrEqual(1);
    expect(value(chat, 'outbox_publish_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(value(chat, 'outbox_messages_pending')).toBe(0);
    const events = await scrape(stack.services['events-api']!.internalUrl);
    expect(value(events, 'events_appended_total')).toBeGreaterThanOrEqual(1);
    expect(value(events, 'events_feed_lag_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(
      value(events, 'consumer_handling_duration_seconds_count', { queue: 'events-api.domain', outcome: 'handled' }),
    ).toBeGreaterThanOrEqual(1);
    expect(value(events, 'consumer_parked_messages', { queue: 'events-api.domain' })).toBe(0);
    // Recorded in a batch after the answer: wait for the dispatcher to count them.
    let dispatcher = '';
    for (let i = 0; i < 50; i++) {
      dispatcher = await scrape(stack.services['webhook-dispatcher']!.internalUrl);
      if (
        value(dispatcher, 'webhook_retries_scheduled_total') >= 1 &&
        value(dispatcher, 'webhook_attempt_duration_seconds_count', { outcome: 'delivered' }) >= 1
      )
        break;
      await sleep(200);
    }
    expect(
      value(dispatcher, 'webhook_attempt_duration_seconds_count', { outcome: 'delivered', status_class: '2xx' }),
    ).toBeGreaterThanOrEqual(1);
    expect(value(dispatcher, 'webhook_attempt_duration_seconds_count', { outcome: 'retry', status_class: '5xx' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(value(dispatcher, 'webhook_retries_scheduled_total')).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
