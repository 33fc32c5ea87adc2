import { Injectable } from '@nestjs/common';
import { InjectLogger } from '@svc/platform';
import { withTraceparent } from '@svc/tracing';
import type { ChannelModel, ConfirmChannel } from 'amqplib';
import type { Logger } from 'pino';
import { AmqpClient } from './amqp-client';
import type { OutboxMessage } from './outbox';
import { declareExchanges } from './topology';

export class BrokerUnavailableError extends Error {
  override readonly name = 'BrokerUnavailableError';
}

/** Publishes persistent messages on a confirm channel: `publish` resolves once the broker confirmed them. */
@Injectable()
export class Publisher {
  private channel?: ConfirmChannel;

  constructor(
    client: AmqpClient,
    @InjectLogger('publisher') private readonly logger: Logger,
  ) {
    void client.addSetup((model) => this.open(model));
  }

  get isReady(): boolean {
    return this.channel !== undefined;
  }

  private async open(model: ChannelModel): Promise<void> {
    const channel = await model.createConfirmChannel();
    channel.on('close', () => {
      if (this.channel === channel) this.channel = undefined;
    });
    channel.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'publisher channel error'));
    await declareExchanges(channel);
    this.channel = channel;
  }

  /** Publishes `messages` and resolves when every one is confirmed; rejects if any is not. */
  async publish(messages: readonly OutboxMessage[]): Promise<void> {
    const channel = this.channel;
    if (!channel) throw new BrokerUnavailableError('RabbitMQ is not connected');
    await Promise.all(
      messages.map(
        (message) =>
          new Promise<void>((resolve, reject) => {
            // As part of the trace that wrote the message (its outbox row's): the broker's headers carry it on.
            withTraceparent(message.traceparent, () =>
              channel.publish(
                message.exchange,
                message.routingKey,
                Buffer.from(JSON.stringify(message.body)),
                { persistent: true, messageId: message.id, contentType: 'application/json' },
                (err: unknown) =>
                  err ? reject(err instanceof Error ? err : new BrokerUnavailableError('message not confirmed')) : resolve(),
              ),
            );
          }),
      ),
    );
  }
}
