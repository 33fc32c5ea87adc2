import { PublicEvent } from '@svc/contracts';
import { startBroker, startRelay, RunningProcess, Stack, startStack, stopBroker, TestProducer } from '@svc/testing';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Stops the whole RabbitMQ application, so it runs alone (`npm test` runs *.outage-spec.ts after
 * the other suites, in band): nothing else may be using the broker meanwhile.
 */
describe('broker outage (real RabbitMQ stopped for 10 s)', () => {
  let stack: Stack;
  let producer: TestProducer;
  let relay: RunningProcess;

  beforeAll(async () => {
    stack = await startStack(['events-api']);
    producer = await TestProducer.create(stack.db.url);
    relay = await startRelay({ DATABASE_URL: stack.db.url, RABBITMQ_URL: stack.env['RABBITMQ_URL']! });
  }, 60_000);

  afterAll(async () => {
    await startBroker().catch(() => undefined);
    await relay?.stop();
    await producer?.close();
    await stack?.stop();
  }, 180_000); // the broker's quorum queues recover after start_app before the vhost can go

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
    let events: PublicEvent[] = [];
    while (Date.now() < deadline) {
      const response = await stack.call('/events?limit=200&after=0', { key: account.key });
      if (response.status === 200) {
        events = [];
        let after = 0;
        for (;;) {
          const body = (await (await stack.call(`/events?limit=200&after=${after}`, { key: account.key })).json()) as { events: PublicEvent[]; next_after: number; more: boolean };
          events.push(...body.events);
          after = body.next_after;
          if (!body.more) break;
        }
        if (events.length >= total) break;
      }
      await sleep(200);
    }
    await sleep(1_000);
    const markers = events.map((e) => (e.data as { message: { id: number } }).message.id);
    expect(events).toHaveLength(total);
    expect(new Set(markers).size).toBe(total);
    expect(await producer.pending()).toBe(0);
  }, 120_000);
});
