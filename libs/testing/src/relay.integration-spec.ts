import { connect } from 'amqplib';
import { DOMAIN_EXCHANGE } from '@svc/messaging';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, TestDatabase } from './database';
import { RunningProcess } from './processes';
import { startRelay, TestProducer } from './producer';
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

  it('three relays share one outbox: every message is published once, and sent rows are marked', async () => {
    const connection = await connect(vhost.url);
    const channel = await connection.createChannel();
    await channel.assertExchange(DOMAIN_EXCHANGE, 'topic', { durable: true });
    const { queue } = await channel.assertQueue(`relay-test-${randomUUID()}`, { exclusive: true });
    await channel.bindQueue(queue, DOMAIN_EXCHANGE, '#');
    const received: string[] = [];
    await channel.consume(queue, (m) => m && received.push(m.properties.messageId as string), { noAck: true });

    const account = randomUUID();
    const env = { DATABASE_URL: db.url, RABBITMQ_URL: vhost.url };
    relays.push(...(await Promise.all([startRelay(env), startRelay(env), startRelay(env)])));
    const sent = await Promise.all(Array.from({ length: 600 }, (_, n) => producer.emit('message.sent', account, n).then((m) => m.id)));

    const deadline = Date.now() + 30_000;
    while (received.length < sent.length && Date.now() < deadline) await sleep(50);
    await sleep(500); // a duplicate would arrive by now
    expect(received).toHaveLength(sent.length);
    expect(new Set(received)).toEqual(new Set(sent));
    expect(await producer.pending()).toBe(0);
    await connection.close();
  }, 60_000);
});
