import { DomainMessage, PublicEvent } from '@svc/contracts';
import { parkingQueue } from '@svc/messaging';
import {
  createTestDatabase,
  PrivatePostgres,
  RunningProcess,
  Stack,
  startRelay,
  startStack,
  TestAccount,
  TestDatabase,
  TestProducer,
} from '@svc/testing';
import { connect } from 'amqplib';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The database of events-api (and of the gateway) is a private PostgreSQL server this suite stops;
 * the shared one is never touched. The producer's outbox stays on the shared server, so that
 * events keep coming while the database of events-api is down.
 */
describe('database outage (a private PostgreSQL stopped under events-api)', () => {
  let server: PrivatePostgres;
  let stack: Stack;
  let producerDb: TestDatabase;
  let producer: TestProducer;
  let relay: RunningProcess;

  beforeAll(async () => {
    server = await PrivatePostgres.create();
    stack = await startStack(['events-api'], { databaseServerUrl: server.serverUrl });
    producerDb = await createTestDatabase();
    producer = await TestProducer.create(producerDb.url);
    relay = await startRelay({ DATABASE_URL: producerDb.url, RABBITMQ_URL: stack.env['RABBITMQ_URL']! });
  }, 120_000);

  afterAll(async () => {
    await server?.start().catch(() => undefined); // a failed test may have left it stopped
    await relay?.stop();
    await producer?.close();
    await producerDb?.drop();
    await stack?.stop();
    await server?.destroy();
  }, 120_000);

  /** Every event of the account's feed; none while the feed does not answer. */
  async function wholeFeed(account: TestAccount): Promise<PublicEvent[]> {
    const events: PublicEvent[] = [];
    for (let after = 0; ;) {
      const response = await stack.call(`/events?limit=200&after=${after}`, { key: account.key }).catch(() => undefined);
      if (response?.status !== 200) {
        await response?.body?.cancel();
        return [];
      }
      const page = (await response.json()) as { events: PublicEvent[]; next_after: number; more: boolean };
      events.push(...page.events);
      if (!page.more) return events;
      after = page.next_after;
    }
  }

  async function feedOf(account: TestAccount, total: number, timeoutMs: number): Promise<PublicEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while ((await wholeFeed(account)).length < total && Date.now() < deadline) await sleep(500);
    await sleep(1_500); // a duplicate, if any, would show up by now
    return wholeFeed(account);
  }

  async function parked(): Promise<number> {
    const connection = await connect(stack.env['RABBITMQ_URL']!);
    try {
      const channel = await connection.createChannel();
      return (await channel.checkQueue(parkingQueue('events-api.domain'))).messageCount;
    } finally {
      await connection.close();
    }
  }

  /** The message ids of events (in the feed or as produced), sorted: each names one produced event. */
  const markers = (events: Array<{ data: unknown }>) =>
    events.map((e) => (e.data as { message: { id: number } }).message.id).sort((a, b) => a - b);

  it('the issue: events-api paused, 20 events, PostgreSQL stopped, events-api resumed, 4 s, PostgreSQL started → every event in the feed once, none parked', async () => {
    const account = await stack.newAccount('Blip');
    const pid = stack.services['events-api']!.process.pid!;
    const sent: DomainMessage[] = [];
    process.kill(pid, 'SIGSTOP');
    try {
      for (let n = 1; n <= 20; n++) sent.push(await producer.emit('message.received', account.accountId, n));
      const deadline = Date.now() + 20_000;
      while ((await producer.pending()) > 0 && Date.now() < deadline) await sleep(100);
      expect(await producer.pending()).toBe(0);
      await server.stop();
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await sleep(4_000);
    await server.start();
    const events = await feedOf(account, 20, 90_000);
    expect(markers(events)).toEqual(markers(sent));
    expect(await parked()).toBe(0);
    // They waited in the retry tiers, and every failure of the outage was recognised as transient.
    const output = stack.services['events-api']!.output();
    expect(output).toMatch(/failed for a transient reason; it will be retried/);
    expect(output).not.toMatch(/failed unexpectedly/);
    const health = await fetch(`${stack.services['events-api']!.url}/healthz`);
    expect(health.status).toBe(200);
  }, 180_000);

  it('a 30 s outage with events produced before, during and after it: every one in the feed once, none parked', async () => {
    const account = await stack.newAccount('Outage');
    let n = 0;
    const sent: DomainMessage[] = [];
    const produce = async (count: number, pauseMs: number) => {
      for (let i = 0; i < count; i++) {
        sent.push(await producer.emit('message.received', account.accountId, ++n));
        await sleep(pauseMs);
      }
    };
    await produce(20, 20);
    await server.stop();
    const stoppedAt = Date.now();
    while (Date.now() - stoppedAt < 30_000) await produce(1, 500); // ~60 events while the database is down
    await server.start();
    await produce(20, 20);
    const events = await feedOf(account, n, 120_000);
    expect(markers(events)).toEqual(markers(sent));
    expect(await parked()).toBe(0);
  }, 240_000);
});
