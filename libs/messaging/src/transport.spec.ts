import type { ConsumeMessage, Options } from 'amqplib';
import pino from 'pino';
import { Writable } from 'node:stream';
import type { AmqpClient } from './amqp-client';
import { MetricsService } from '@svc/platform';
import { CONSUME_EVENT_EXTRAS } from './consume-event';
import { InvalidMessageError } from './failures';
import { consumerMetrics } from './metrics';
import { MESSAGE_HEADERS, QueueSpec } from './topology';
import { AmqpTransport, ConsumerChannels } from './transport';

interface Published {
  exchange: string;
  routingKey: string;
  content: Buffer;
  options: Options.Publish;
}

/** JSON log lines written by the transport. */
function capturedLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { lines, logger: pino({ level: 'debug' }, stream) };
}

/** Channels that record what was published, acked and nacked; `closed` makes ack and nack throw as amqplib does. */
function fakeChannels(options: { closed?: boolean; publishFails?: boolean } = {}) {
  const published: Published[] = [];
  const settled: string[] = [];
  const closed = () => {
    throw Object.assign(new Error('Channel closed'), { name: 'IllegalOperationError' });
  };
  const channels: ConsumerChannels = {
    channel: {
      ack: () => (options.closed ? closed() : settled.push('ack')),
      nack: (_message, _allUpTo, requeue) => (options.closed ? closed() : settled.push(requeue ? 'nack-requeue' : 'nack-drop')),
    },
    confirm: {
      publish: (exchange, routingKey, content, publishOptions, callback) => {
        if (options.publishFails) closed();
        published.push({ exchange, routingKey, content, options: publishOptions ?? {} });
        setImmediate(() => callback?.(null, {}));
        return true;
      },
    },
  };
  return { channels, published, settled };
}

const spec: QueueSpec = { queue: 'events-api.domain', exchange: 'svc.domain', bindings: ['#'], retryDelaysMs: [10, 20, 30] };

function delivery(headers: Record<string, unknown> = {}, routingKey = 'message.received'): ConsumeMessage {
  return {
    content: Buffer.from(JSON.stringify({ id: 'm-1' })),
    fields: { deliveryTag: 1, redelivered: false, exchange: 'svc.domain', routingKey, consumerTag: 'c' },
    properties: { messageId: 'm-1', contentType: 'application/json', headers },
  } as unknown as ConsumeMessage;
}

function transportWith(handler: () => Promise<unknown>) {
  const { lines, logger } = capturedLogger();
  const transport = new AmqpTransport({ client: {} as AmqpClient, queues: [spec], prefetch: 1, logger });
  transport.addHandler('message.received', handler, true, CONSUME_EVENT_EXTRAS);
  return { transport, lines };
}

describe('AmqpTransport', () => {
  let unhandled: unknown[];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled = [];
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  it('acks a message after its handler resolved', async () => {
    const { transport } = transportWith(async () => undefined);
    const fake = fakeChannels();
    await transport.handle(fake.channels, spec, delivery());
    expect(fake.settled).toEqual(['ack']);
    expect(fake.published).toEqual([]);
  });

  it('an ack on a closed channel does not throw out of the handler: it is logged and dropped', async () => {
    const { transport, lines } = transportWith(async () => undefined);
    const fake = fakeChannels({ closed: true });
    await expect(transport.handle(fake.channels, spec, delivery())).resolves.toBeUndefined();
    expect(lines).toContainEqual(expect.objectContaining({ msg: expect.stringContaining('ack failed'), err: 'Channel closed' }));
    await new Promise(setImmediate);
    expect(unhandled).toEqual([]);
  });

  it('a failed handler on a closed channel (move and nack both throw) resolves too, logged, nothing unhandled', async () => {
    const { transport, lines } = transportWith(async () =>
      Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    );
    const fake = fakeChannels({ closed: true, publishFails: true });
    await expect(transport.handle(fake.channels, spec, delivery())).resolves.toBeUndefined();
    expect(lines).toContainEqual(expect.objectContaining({ msg: expect.stringContaining('could not move the message') }));
    expect(lines).toContainEqual(expect.objectContaining({ msg: expect.stringContaining('nack failed') }));
    await new Promise(setImmediate);
    expect(unhandled).toEqual([]);
  });

  it('moves a transiently failed message to the retry tier of its attempt (confirmed), then acks it', async () => {
    const { transport } = transportWith(async () => Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), {})));
    const fake = fakeChannels();
    await transport.handle(fake.channels, spec, delivery({ 'x-death': [{}], 'x-delivery-count': 2 }));
    expect(fake.published).toHaveLength(1);
    const [moved] = fake.published;
    expect(moved).toMatchObject({
      exchange: '',
      routingKey: 'events-api.domain.retry.10',
      options: { persistent: true, messageId: 'm-1' },
    });
    expect(moved!.options.headers).toMatchObject({
      [MESSAGE_HEADERS.attempt]: 1,
      [MESSAGE_HEADERS.routingKey]: 'message.received',
      [MESSAGE_HEADERS.firstFailureAt]: expect.any(String),
    });
    expect(moved!.options.headers).not.toHaveProperty('x-death');
    expect(moved!.options.headers).not.toHaveProperty('x-delivery-count');
    expect(moved!.content.toString()).toBe(JSON.stringify({ id: 'm-1' }));
    expect(fake.settled).toEqual(['ack']);
  });

  it('waits longer with each attempt, capped at the longest tier, for ever', async () => {
    const { transport } = transportWith(async () => Promise.reject(new Error('timeout exceeded when trying to connect')));
    const fake = fakeChannels();
    for (const attempt of [1, 2, 7]) {
      await transport.handle(
        fake.channels,
        spec,
        delivery({ [MESSAGE_HEADERS.attempt]: attempt, [MESSAGE_HEADERS.routingKey]: 'message.received' }, 'events-api.domain'),
      );
    }
    expect(fake.published.map((p) => [p.routingKey, p.options.headers?.[MESSAGE_HEADERS.attempt]])).toEqual([
      ['events-api.domain.retry.20', 2],
      ['events-api.domain.retry.30', 3],
      ['events-api.domain.retry.30', 8],
    ]);
    expect(fake.settled).toEqual(['ack', 'ack', 'ack']);
  });

  it('a message back from a retry tier reaches the handler of its original routing key', async () => {
    const handler = jest.fn(async () => undefined);
    const { transport } = transportWith(handler);
    const fake = fakeChannels();
    await transport.handle(
      fake.channels,
      spec,
      delivery({ [MESSAGE_HEADERS.attempt]: 1, [MESSAGE_HEADERS.routingKey]: 'message.received' }, 'events-api.domain'),
    );
    expect(handler).toHaveBeenCalledWith({ id: 'm-1' }, expect.objectContaining({ routingKey: 'message.received', attempt: 1 }));
    expect(fake.settled).toEqual(['ack']);
  });

  it('parks an invalid message with its reason and acks it', async () => {
    const { transport, lines } = transportWith(async () =>
      Promise.reject(new InvalidMessageError('invalid domain message: kind is unknown')),
    );
    const fake = fakeChannels();
    await transport.handle(fake.channels, spec, delivery());
    expect(fake.published).toHaveLength(1);
    expect(fake.published[0]).toMatchObject({ exchange: '', routingKey: 'events-api.domain.parked' });
    expect(fake.published[0]!.options.headers).toMatchObject({
      [MESSAGE_HEADERS.parkReason]: 'invalid domain message: kind is unknown',
      [MESSAGE_HEADERS.parkedAt]: expect.any(String),
    });
    expect(fake.settled).toEqual(['ack']);
    expect(lines).toContainEqual(expect.objectContaining({ level: 50, msg: expect.stringContaining('parked') }));
  });

  it('parks through the dead-letter exchange when the move cannot be published', async () => {
    const { transport } = transportWith(async () => Promise.reject(new InvalidMessageError('bad')));
    const fake = fakeChannels({ publishFails: true });
    await transport.handle(fake.channels, spec, delivery());
    expect(fake.settled).toEqual(['nack-drop']);
  });

  it('retries an unknown error (never loses it) and logs it as an error', async () => {
    const { transport, lines } = transportWith(async () => Promise.reject(new TypeError('x is undefined')));
    const fake = fakeChannels();
    await transport.handle(fake.channels, spec, delivery());
    expect(fake.published[0]).toMatchObject({ routingKey: 'events-api.domain.retry.10' });
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 50, err: 'TypeError: x is undefined', msg: expect.stringContaining('retried') }),
    );
  });

  it('gives a message back to its queue after a pause when the retry move fails', async () => {
    const { transport } = transportWith(async () => Promise.reject(Object.assign(new Error('reset'), { code: 'ECONNRESET' })));
    const fake = fakeChannels({ publishFails: true });
    await transport.handle(fake.channels, spec, delivery());
    expect(fake.settled).toEqual(['nack-requeue']);
  });

  it('counts handling by outcome and failures by kind (transient, poison), by queue', async () => {
    const metrics = new MetricsService();
    const { logger } = capturedLogger();
    const outcomes: Array<() => Promise<unknown>> = [
      async () => undefined,
      async () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
      async () => Promise.reject(new InvalidMessageError('bad')),
      async () => undefined,
    ];
    const transport = new AmqpTransport({
      client: {} as AmqpClient,
      queues: [spec],
      prefetch: 1,
      logger,
      metrics: consumerMetrics(metrics, {} as AmqpClient, [spec.queue]),
    });
    transport.addHandler('message.received', () => outcomes.shift()!(), true, CONSUME_EVENT_EXTRAS);
    for (let i = 0; i < 4; i++) await transport.handle(fakeChannels().channels, spec, delivery());
    const text = await metrics.registry.metrics();
    expect(text).toContain('consumer_handling_duration_seconds_count{queue="events-api.domain",outcome="handled"} 2');
    expect(text).toContain('consumer_handling_duration_seconds_count{queue="events-api.domain",outcome="transient"} 1');
    expect(text).toContain('consumer_handling_duration_seconds_count{queue="events-api.domain",outcome="poison"} 1');
    expect(text).toContain('consumer_failures_total{queue="events-api.domain",kind="transient"} 1');
    expect(text).toContain('consumer_failures_total{queue="events-api.domain",kind="poison"} 1');
    // The parked gauge asks the broker on scrape: without a connection it reads nothing, and says so.
    expect(text).not.toMatch(/^consumer_parked_messages\{/m);
    expect(await metrics.registry.metrics()).toContain('metrics_scrape_read_failures_total{gauge="consumer_parked_messages"}');
  });
});
