// The monitoring against the running apps: every metric an alert rule or a dashboard panel names is
// exported by the code (a scrape of each app's /metrics), and the webhook-backlog alert's
// expression turns true (promtool evaluating it) over samples scraped while the dispatcher's
// receiver stops answering.
import { sampleEventData } from '@svc/contracts';
import { domainMessage, enqueueDomainMessages } from '@svc/messaging';
import { closeAll, feedEvents, HttpsReceiver, sampleEvent, Stack, startReceivingStack, TestCa } from '@svc/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { exposedMetricNames, Labels, metricNames, MONITORING, parseExposition, promtool, ruleGroups } from './prometheus';

const groups = ruleGroups();
const rules = groups.flatMap((g) => g.rules ?? []);
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
    ({ ca, receiver, stack } = await startReceivingStack(
      ['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher', 'chat'],
      {
        WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s',
        WEBHOOK_TIMEOUT_MS: '20000',
        WEBHOOK_POLL_INTERVAL_MS: '200',
        WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: String(PER_ENDPOINT),
      },
    ));
  }, 180_000);

  afterAll(() => closeAll(stack, receiver, ca));

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
    const account = await stack.newAccount();
    const created = await stack.call('/webhooks', { method: 'POST', key: account.key, json: { url: receiver.url('/stopped') } });
    expect(created.status).toBe(201);
    // Every scrape's webhook_deliveries_due series, in order.
    const series = new Map<string, { labels: Labels; values: number[] }>();
    let scrapes = 0;
    let last: Array<{ labels: Labels; value: number }> = [];
    const record = async () => {
      last = parseExposition(await scrape(dispatcher.internalUrl));
      scrapes++;
      for (const sample of last.filter((s) => s.labels['__name__'] === 'webhook_deliveries_due')) {
        const key = JSON.stringify(sample.labels);
        const entry = series.get(key) ?? { labels: { ...sample.labels, app: 'webhook-dispatcher' }, values: [] };
        entry.values.push(sample.value);
        series.set(key, entry);
      }
    };
    const latest = (name: string) => Math.max(...last.filter((s) => s.labels['__name__'] === name).map((s) => s.value));
    /** promtool's verdict on the backlog alert's expression over the scrapes, taken as one a minute. */
    const backlogExpr = (expected: Array<{ labels: string; value: number }>) =>
      promtool(groups, [
        {
          tests: [
            {
              interval: '1m',
              input_series: [...series.values()].map(({ labels: { __name__: name, ...labels }, values }) => ({
                series: `${name}{${Object.entries(labels)
                  .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
                  .join(',')}}`,
                values: [...Array<string>(scrapes - values.length).fill('_'), ...values].join(' '),
              })),
              promql_expr_test: [{ expr: String(backlogRule.expr), eval_time: `${scrapes - 1}m`, exp_samples: expected }],
            },
          ],
        },
      ]);

    // Before: nothing due, the alert's expression is false.
    for (let i = 0; i < 3; i++) {
      await record();
      await sleep(300);
    }
    expect(latest('webhook_deliveries_due')).toBe(0);
    expect(backlogExpr([])).toEqual({ ok: true, output: expect.any(String) });

    // The receiver stops answering: attempts hang, the endpoint's cap is reached, new events wait.
    receiver.respond('/stopped', { delayMs: 60_000 });
    const dues: number[] = [];
    for (let round = 0; round < 8; round++) {
      await feedEvents(dispatcher.internalUrl, stack.env, account.accountId, [sampleEvent(), sampleEvent(), sampleEvent()]);
      await sleep(400);
      await record();
      dues.push(latest('webhook_deliveries_due'));
    }
    expect(receiver.received('/stopped').length).toBeLessThanOrEqual(PER_ENDPOINT);
    // 24 events, at most PER_ENDPOINT in flight: the rest are due, and the count only grew.
    expect(dues.at(-1)).toBe(24 - PER_ENDPOINT);
    expect(dues.every((value, i) => i === 0 || value >= dues[i - 1]!)).toBe(true);
    expect(backlogExpr([{ labels: '{}', value: 24 - PER_ENDPOINT }])).toEqual({ ok: true, output: expect.any(String) });
    expect(latest('webhook_deliveries_in_flight')).toBe(PER_ENDPOINT);
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
