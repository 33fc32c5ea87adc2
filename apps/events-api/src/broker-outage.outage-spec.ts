import { PublicEvent } from '@svc/contracts';
import { Pipeline, Stack, startBroker, startPipeline, stopBroker, TestProducer } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Stops the whole RabbitMQ application, so it runs alone (`npm test` runs *.outage-spec.ts after
 * the other suites, in band): nothing else may be using the broker meanwhile.
 */
describe('broker outage (real RabbitMQ stopped for 10 s)', () => {
  let pipeline: Pipeline;
  let stack: Stack;
  let producer: TestProducer;

  beforeAll(async () => {
    pipeline = await startPipeline();
    ({ stack, producer } = pipeline);
  }, 60_000);

  afterAll(async () => {
    await startBroker().catch(() => undefined);
    await pipeline?.stop();
  }, 180_000); // the broker's quorum queues recover after start_app before the vhost can go

  /** Every event of the account's feed, page by page; none while the feed does not answer. */
  async function wholeFeed(key: string): Promise<PublicEvent[]> {
    const events: PublicEvent[] = [];
    for (let after = 0; ;) {
      const response = await stack.call(`/events?limit=200&after=${after}`, { key });
      if (response.status !== 200) {
        await response.body?.cancel(); // an unread body would hold the connection (and the gateway's shutdown)
        return [];
      }
      const page = (await response.json()) as { events: PublicEvent[]; next_after: number; more: boolean };
      events.push(...page.events);
      if (!page.more) return events;
      after = page.next_after;
    }
  }

  it('delivers every event produced before, during and after the outage exactly once', async () => {
    const account = await stack.newAccount('Outage');
    const total = 300;
    let n = 0;
    const produce = async (count: number, pauseMs: number) => {
      for (let i = 0; i < count; i++) {
        await producer.emit('message.received', account.accountId, ++n);
        await sleep(pauseMs);
      }
    };
    await produce(50, 5);
    await stopBroker();
    const stoppedAt = Date.now();
    await produce(200, 45); // ~10 s of writes while the broker is down
    await sleep(Math.max(0, 10_000 - (Date.now() - stoppedAt)));
    await startBroker();
    await produce(total - n, 5);

    const deadline = Date.now() + 60_000;
    while ((await wholeFeed(account.key)).length < total && Date.now() < deadline) await sleep(200);
    await sleep(1_000); // a redelivery, if any, would show up by now
    const events = await wholeFeed(account.key);
    const markers = events.map((e) => (e.data as { message: { id: number } }).message.id);
    expect(events).toHaveLength(total);
    expect(new Set(markers).size).toBe(total);
    expect(await producer.pending()).toBe(0);
  }, 120_000);
});
