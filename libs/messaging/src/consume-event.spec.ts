import { Controller, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, Payload } from '@nestjs/microservices';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { ConsumeMessage } from 'amqplib';
import pino from 'pino';
import type { AmqpClient } from './amqp-client';
import { ConsumeEvent } from './consume-event';
import { InvalidMessageError } from './failures';
import type { QueueSpec } from './topology';
import { AmqpMessageContext, AmqpTransport, ConsumerChannels } from './transport';

const spec: QueueSpec = { queue: 'test.consumer', exchange: 'svc.domain', bindings: ['#'], retryDelaysMs: [10] };

function delivery(routingKey: string): ConsumeMessage {
  return {
    content: Buffer.from(JSON.stringify({ id: 'm-1' })),
    fields: { deliveryTag: 1, redelivered: false, exchange: 'svc.domain', routingKey, consumerTag: 'c' },
    properties: { messageId: 'm-1', contentType: 'application/json', headers: {} },
  } as unknown as ConsumeMessage;
}

/** Channels that record where each message went. */
function fakeChannels() {
  const movedTo: string[] = [];
  const settled: string[] = [];
  const channels: ConsumerChannels = {
    channel: { ack: () => settled.push('ack'), nack: () => settled.push('nack') },
    confirm: {
      publish: (_exchange, queue, _content, _options, callback) => {
        movedTo.push(queue);
        setImmediate(() => callback?.(null, {}));
        return true;
      },
    },
  };
  return { channels, movedTo, settled };
}

/**
 * Consumers in a real Nest hybrid app: the filter each `@ConsumeEvent` handler brings is in place
 * when Nest wraps it, so the transport classifies the errors the handlers threw.
 */
describe('@ConsumeEvent handlers in a Nest hybrid app', () => {
  const seen: Array<{ payload: unknown; context: AmqpMessageContext }> = [];

  @Controller()
  class TestConsumer {
    @ConsumeEvent('message.received')
    received(@Payload() payload: unknown, @Ctx() context: AmqpMessageContext): Promise<void> {
      seen.push({ payload, context });
      return Promise.resolve();
    }

    @ConsumeEvent(['contact.erased', 'contact.changed'])
    invalid(): Promise<void> {
      return Promise.reject(new InvalidMessageError('the body names no account'));
    }

    @ConsumeEvent('consent.granted')
    unreachable(): Promise<void> {
      return Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }));
    }
  }

  async function hybrid(controller: new () => object) {
    @Module({ controllers: [controller] })
    class TestModule {}
    const app = await NestFactory.create(TestModule, new FastifyAdapter(), { logger: false, abortOnError: false });
    const transport = new AmqpTransport({ client: {} as AmqpClient, queues: [spec], prefetch: 1, logger: pino({ level: 'silent' }) });
    return { app, connect: () => app.connectMicroservice({ strategy: transport }, { inheritAppConfig: false }), transport };
  }

  it('hands each handler its payload and context; a permanent error parks the message, a transient one retries it', async () => {
    const { app, connect, transport } = await hybrid(TestConsumer);
    connect();
    try {
      const handled = fakeChannels();
      await transport.handle(handled.channels, spec, delivery('message.received'));
      expect(handled.settled).toEqual(['ack']);
      expect(seen).toEqual([{ payload: { id: 'm-1' }, context: expect.objectContaining({ routingKey: 'message.received', attempt: 0 }) }]);

      for (const routingKey of ['contact.erased', 'contact.changed']) {
        const poison = fakeChannels();
        await transport.handle(poison.channels, spec, delivery(routingKey));
        expect(poison.movedTo).toEqual(['test.consumer.parked']);
      }

      const transient = fakeChannels();
      await transport.handle(transient.channels, spec, delivery('consent.granted'));
      expect(transient.movedTo).toEqual(['test.consumer.retry.10']);
    } finally {
      await app.close();
    }
  });

  it('refuses to start with a handler declared with @EventPattern alone (its errors would reach the transport replaced)', async () => {
    @Controller()
    class BareConsumer {
      @EventPattern('message.received')
      received(): Promise<void> {
        return Promise.resolve();
      }
    }
    const { app, connect } = await hybrid(BareConsumer);
    try {
      expect(connect).toThrow('the handler of "message.received" must be declared with @ConsumeEvent');
    } finally {
      await app.close();
    }
  });
});
