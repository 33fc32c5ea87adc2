import { ChannelModel, connect } from 'amqplib';
import { sampleEventData } from '@svc/contracts';
import { DOMAIN_EXCHANGE, domainMessage, enqueueDomainMessages } from '@svc/messaging';
import { execute } from '@svc/persistence';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, TestDatabase } from './database';
import { RunningProcess } from './processes';
import { PRODUCER_SCHEMA, startRelay, TestProducer } from './producer';
import { createTestVhost, TestVhost } from './rabbitmq';

describe('outbox relay (real PostgreSQL and RabbitMQ)', () => {
  let db: TestDatabase;
  let vhost: TestVhost;
  let producer: TestProducer;
  const relays: RunningProcess[] = [];

  beforeAll(async () => {
    [db, vhost] = await Promise.all([createTestDatabase(), createTestVhost()]);
    producer = await TestProducer.create(db.url);
  });

  afterAll(async () => {
    await Promise.all(relays.map((r) => r.stop()));
    await producer?.close();
    await Promise.all([db?.drop(), vhost?.drop()]);
  });

  /** The ids of every message published to the domain exchange from now on, in arrival order. */
  async function collectDomainMessages(): Promise<{ connection: ChannelModel; received: string[] }> {
    const connection = await connect(vhost.url);
    const channel = await connection.createChannel();
    await channel.assertExchange(DOMAIN_EXCHANGE, 'topic', { durable: true });
    const { queue } = await channel.assertQueue(`relay-test-${randomUUID()}`, { exclusive: true });
    await channel.bindQueue(queue, DOMAIN_EXCHANGE, '#');
    const received: string[] = [];
    await channel.consume(queue, (m) => m && received.push(m.properties.messageId as string), { noAck: true });
    return { connection, received };
  }

  it('three relays share one outbox: every message is published once, and no published row is kept (no copy of the data)', async () => {
    const { connection, received } = await collectDomainMessages();

    const account = randomUUID();
    const env = { DATABASE_URL: db.url, RABBITMQ_URL: vhost.url };
    relays.push(...(await Promise.all([startRelay(env), startRelay(env), startRelay(env)])));
    // 600 commits, 16 at a time: the producer's pool (8) must not make them wait past its connect timeout.
    const sent: string[] = [];
    for (let n = 0; n < 600; n += 16) {
      const batch = Array.from({ length: Math.min(16, 600 - n) }, (_, i) =>
        producer.emit('message.sent', account, n + i).then((m) => m.id),
      );
      sent.push(...(await Promise.all(batch)));
    }

    const deadline = Date.now() + 30_000;
    while (received.length < sent.length && Date.now() < deadline) await sleep(50);
    await sleep(500); // a duplicate would arrive by now
    expect(received).toHaveLength(sent.length);
    expect(new Set(received)).toEqual(new Set(sent));
    expect(await producer.pending()).toBe(0);
    await connection.close();
  }, 60_000);

  it('publishes bursts of commits through their notifications alone, without waiting for the poll', async () => {
    const { connection, received } = await collectDomainMessages();
    // One relay alone, whose poll would take a minute: only the notifications (and the rounds they
    // start) can publish in time.
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    const relay = await startRelay({ DATABASE_URL: db.url, RABBITMQ_URL: vhost.url, OUTBOX_POLL_INTERVAL_MS: '60000' });
    relays.push(relay);
    const account = randomUUID();
    const sent: string[] = [];
    for (let burst = 0; burst < 5; burst += 1) {
      sent.push(
        ...(await Promise.all(
          Array.from({ length: 40 }, (_, n) => producer.emit('message.sent', account, burst * 100 + n).then((m) => m.id)),
        )),
      );
      await sleep(30);
    }
    const deadline = Date.now() + 10_000;
    while (sent.some((id) => !received.includes(id)) && Date.now() < deadline) await sleep(20);
    expect(sent.filter((id) => !received.includes(id))).toEqual([]);
    await relay.stop();
    await connection.close();
  }, 30_000);

  it('publishes what a transaction committed, never what it rolled back', async () => {
    const { connection, received } = await collectDomainMessages();
    relays.push(await startRelay({ DATABASE_URL: db.url, RABBITMQ_URL: vhost.url }));
    const account = randomUUID();
    const rolledBack = domainMessage('message.sent', account, sampleEventData('message.sent', { n: 1 }));
    const committed = domainMessage('message.sent', account, sampleEventData('message.sent', { n: 2 }));

    await producer.db
      .transaction(async (manager) => {
        await enqueueDomainMessages(manager, PRODUCER_SCHEMA, [rolledBack]);
        throw new Error('the change failed');
      })
      .catch(() => undefined);
    await producer.db.transaction((manager) => enqueueDomainMessages(manager, PRODUCER_SCHEMA, [committed]));

    const deadline = Date.now() + 10_000;
    while (received.length === 0 && Date.now() < deadline) await sleep(20);
    await sleep(300);
    expect(received).toEqual([committed.id]);
    expect(await producer.pending()).toBe(0);
    await connection.close();
  }, 30_000);

  it('removes at start the rows an earlier version marked sent and kept', async () => {
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    const kept = domainMessage('message.sent', randomUUID(), sampleEventData('message.sent', { n: 3 }));
    await execute(
      producer.db,
      `INSERT INTO ${PRODUCER_SCHEMA}.outbox (id, exchange, routing_key, body, sent_at) VALUES ($1, $2, $3, $4, now())`,
      [kept.id, DOMAIN_EXCHANGE, kept.kind, JSON.stringify(kept)],
    );
    expect(await producer.pending()).toBe(1);
    relays.push(await startRelay({ DATABASE_URL: db.url, RABBITMQ_URL: vhost.url }));
    expect(await producer.pending()).toBe(0);
  }, 30_000);
});
