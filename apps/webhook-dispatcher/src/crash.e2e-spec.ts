import { CreatedWebhookDto } from '@svc/contracts';
import { closeAll, HttpsReceiver, receiverTrust, RunningApp, Stack, startApp, startReceivingStack, TestCa } from '@svc/testing';
import { feedEvents, sampleEvent } from '@svc/testing';
import { queryRows } from '@svc/persistence';

const EVENTS = 500;
/** Attempts in flight per process: an exact bound on what a killed process can leave half-done. */
const CONCURRENCY = 16;

describe('webhook-dispatcher: kill -9 during 500 deliveries (two processes)', () => {
  let ca: TestCa;
  let receiver: HttpsReceiver;
  let stack: Stack;
  let twin: RunningApp;
  const settings = { WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_POLL_INTERVAL_MS: '200', WEBHOOK_CONCURRENCY: String(CONCURRENCY) };

  beforeAll(async () => {
    ({ ca, receiver, stack } = await startReceivingStack(['webhook-dispatcher'], settings));
    twin = await startApp('webhook-dispatcher', { ...stack.env, ...receiverTrust(ca), ...settings });
  }, 60_000);

  afterAll(() => closeAll(twin, stack, receiver, ca));

  it('delivers every event at least once, with its own id, after one process is killed mid-delivery and restarted', async () => {
    receiver.respond('/crash', { delayMs: 40 });
    const response = await stack.call('/webhooks', { method: 'POST', json: { url: receiver.url('/crash') } });
    const endpoint = (await response.json()) as CreatedWebhookDto;
    const events = Array.from({ length: EVENTS }, () => sampleEvent('message.received'));
    // Fed through the process that survives, as the events queue would keep feeding the others.
    const feeding = feedEvents(twin.internalUrl, stack.env, stack.account.accountId, events);
    await receiver.waitFor('/crash', 100, 30_000);
    await stack.restart('webhook-dispatcher', 'SIGKILL');
    await feeding;

    const expected = new Set(events.map((e) => String(e.id)));
    const delivered = () => new Set(receiver.received('/crash').map((r) => r.headers['x-svc-event-id'] as string));
    const deadline = Date.now() + 60_000;
    while (delivered().size < EVENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect([...expected].filter((id) => !delivered().has(id))).toEqual([]);

    const requests = receiver.received('/crash');
    for (const request of requests)
      expect(String((JSON.parse(request.body.toString('utf8')) as { id: number }).id)).toBe(request.headers['x-svc-event-id']);
    // Only attempts the killed process had in flight can have been sent twice.
    expect(requests.length - EVENTS).toBeLessThanOrEqual(CONCURRENCY);
    const waitDelivered = Date.now() + 15_000;
    let statuses: Array<{ status: string; n: number }> = [];
    while (Date.now() < waitDelivered) {
      statuses = await queryRows<{ status: string; n: number }>(
        stack.dataSource,
        'SELECT status, count(*)::int AS n FROM webhooks.deliveries WHERE endpoint_id = $1 GROUP BY status',
        [endpoint.id],
      );
      if (statuses.length === 1 && statuses[0]!.status === 'delivered') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(statuses).toEqual([{ status: 'delivered', n: EVENTS }]);
  }, 120_000);
});
