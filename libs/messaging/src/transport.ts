import { CustomTransportStrategy, MessageHandler, Server } from '@nestjs/microservices';
import type { Channel, ChannelModel, ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import { lastValueFrom, Observable } from 'rxjs';
import { AmqpClient, closeWithin } from './amqp-client';
import { declareQueue, QueueSpec } from './topology';

/** Thrown by a handler (or the payload check) for a message that can never succeed: it is parked. */
export class InvalidMessageError extends Error {
  override readonly name = 'InvalidMessageError';
}

export interface AmqpTransportOptions {
  client: AmqpClient;
  queues: QueueSpec[];
  /** Unacknowledged messages held at once per queue: the consumer's concurrency. */
  prefetch: number;
  logger: Logger;
}

/** What a handler receives besides the payload. */
export interface AmqpMessageContext {
  routingKey: string;
  queue: string;
  messageId?: string;
  redelivered: boolean;
}

/**
 * A NestJS microservice transport on RabbitMQ for `@EventPattern(routingKey)` handlers.
 *
 * - Topology is declared on every (re)connect (quorum queues, dead-letter to a parking queue).
 * - The handler for a message is the one whose pattern equals its routing key.
 * - Ack only after the handler resolved (its transaction committed). A handler that throws gets the
 *   message back (nack, requeue); the quorum queue's delivery limit parks a message that keeps
 *   failing. A message that is not JSON, has no handler, or fails validation
 *   (`InvalidMessageError`) is parked at once.
 */
export class AmqpTransport extends Server implements CustomTransportStrategy {
  private channel?: Channel;

  constructor(private readonly options: AmqpTransportOptions) {
    super();
  }

  listen(callback: () => void): void {
    void this.options.client.addSetup((model) => this.consume(model)).then(callback, callback);
  }

  private async consume(model: ChannelModel): Promise<void> {
    const channel = await model.createChannel();
    channel.on('error', (err: Error) => this.options.logger.warn({ err: err.message }, 'consumer channel error'));
    await channel.prefetch(this.options.prefetch);
    for (const spec of this.options.queues) {
      await declareQueue(channel, spec);
      await channel.consume(spec.queue, (message) => message && void this.handle(channel, spec.queue, message));
    }
    this.channel = channel;
  }

  private async handle(channel: Channel, queue: string, message: ConsumeMessage): Promise<void> {
    const routingKey = message.fields.routingKey;
    const log = this.options.logger.child({ queue, routing_key: routingKey, message_id: message.properties.messageId });
    try {
      const handler: MessageHandler | undefined = this.getHandlerByPattern(routingKey) ?? undefined;
      if (!handler) throw new InvalidMessageError(`no handler for routing key ${routingKey}`);
      let payload: unknown;
      try {
        payload = JSON.parse(message.content.toString('utf8'));
      } catch {
        throw new InvalidMessageError('the body is not JSON');
      }
      const context: AmqpMessageContext = { routingKey, queue, messageId: message.properties.messageId, redelivered: message.fields.redelivered };
      const result = await handler(payload, context);
      if (result instanceof Observable) await lastValueFrom(result, { defaultValue: undefined });
      channel.ack(message);
    } catch (err) {
      if (err instanceof InvalidMessageError) {
        log.error({ err: err.message }, 'message parked: it cannot be processed');
        channel.nack(message, false, false);
      } else {
        log.warn({ err: (err as Error).message }, 'message handling failed; it will be redelivered');
        channel.nack(message, false, true);
      }
    }
  }

  async close(): Promise<void> {
    const channel = this.channel;
    this.channel = undefined;
    await closeWithin(channel?.close());
  }

  on(): void {
    // Connection events are logged by AmqpClient.
  }

  unwrap<T>(): T {
    return this.channel as T;
  }
}
