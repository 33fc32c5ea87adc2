import { connect } from 'amqplib';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The broker tests use (its `/` vhost); each suite gets its own vhost on it. */
export const TEST_RABBITMQ_URL = process.env['TEST_RABBITMQ_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672';

export interface TestVhost {
  /** RABBITMQ_URL for the apps of this suite. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

const rabbitmqctl = (...args: string[]) => run('rabbitmqctl', ['-q', ...args], { timeout: 60_000 });

/**
 * A throw-away RabbitMQ vhost: suites running at the same time (and the developer's own apps) each
 * have their exchanges and queues to themselves.
 */
export async function createTestVhost(): Promise<TestVhost> {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  await rabbitmqctl('add_vhost', name);
  const user = new URL(TEST_RABBITMQ_URL).username || 'guest';
  await rabbitmqctl('set_permissions', '-p', name, user, '.*', '.*', '.*');
  const url = new URL(TEST_RABBITMQ_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => rabbitmqctl('delete_vhost', name).then(() => undefined) };
}

/** Stops the broker's application (connections drop, the node stays up) and starts it again. */
export const stopBroker = () => rabbitmqctl('stop_app').then(() => undefined);
export const startBroker = () => rabbitmqctl('start_app').then(() => undefined);

/**
 * Closes every client connection of one vhost (the suite's own), as a broker restart or a network
 * cut would, without touching anyone else's. Returns how many were closed.
 */
export async function closeVhostConnections(vhost: string): Promise<number> {
  const { stdout } = await rabbitmqctl('list_connections', 'pid', 'vhost');
  const pids = stdout
    .split('\n')
    .map((line) => line.trim().split('\t'))
    .filter(([pid, name]) => pid?.startsWith('<') && name === vhost)
    .map(([pid]) => pid as string);
  for (const pid of pids) await rabbitmqctl('close_connection', pid, 'test: connection closed by the suite').catch(() => undefined);
  return pids.length;
}

/** A message seen on an exchange by `tapExchange`. */
export interface TappedMessage {
  routingKey: string;
  body: unknown;
}

export interface ExchangeTap {
  /** Every message published to the exchange since the tap started, in arrival order. */
  messages: TappedMessage[];
  close(): Promise<void>;
}

/**
 * Copies of what is published to a topic exchange of the suite's vhost from now on (an exclusive
 * queue bound with `#`): what an outbox published, now that outboxes keep nothing they published.
 */
export async function tapExchange(vhostUrl: string, exchange: string): Promise<ExchangeTap> {
  const connection = await connect(vhostUrl);
  const channel = await connection.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true });
  await channel.bindQueue(queue, exchange, '#');
  const messages: TappedMessage[] = [];
  await channel.consume(
    queue,
    (m) => m && messages.push({ routingKey: m.fields.routingKey, body: JSON.parse(m.content.toString('utf8')) as unknown }),
    { noAck: true },
  );
  return { messages, close: () => connection.close() };
}
