import { CustomTransportStrategy, MessageHandler, Server } from '@nestjs/microservices';
import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage, MessagePropertyHeaders } from 'amqplib';
import type { Logger } from 'pino';
import { lastValueFrom, Observable } from 'rxjs';
import { AmqpClient, closeWithin } from './amqp-client';
import { isConsumeEventHandler } from './consume-event';
import { classifyFailure, Failure, InvalidMessageError } from './failures';
import type { ConsumerMetrics, HandlingOutcome } from './metrics';
import {
  BROKER_HEADERS,
  declareQueue,
  MESSAGE_HEADERS,
  parkingQueue,
  QueueSpec,
  RETRY_DELAYS_MS,
  retryDelay,
  retryQueue,
} from './topology';

export interface AmqpTransportOptions {
  client: AmqpClient;
  queues: QueueSpec[];
  /** Unacknowledged messages held at once per queue: the consumer's concurrency. */
  prefetch: number;
  logger: Logger;
  metrics?: ConsumerMetrics;
}

/** What a handler receives besides the payload. */
export interface AmqpMessageContext {
  routingKey: string;
  queue: string;
  messageId?: string;
  redelivered: boolean;
  /** Transient failures of this message so far (0 on its first delivery). */
  attempt: number;
}

/** The channels of one connection: deliveries come on `channel`, moves are published on `confirm`. */
export interface ConsumerChannels {
  channel: Pick<Channel, 'ack' | 'nack'>;
  confirm: Pick<ConfirmChannel, 'publish'>;
}

/** How long a message whose move failed is held before it goes back to its queue (no hot loop). */
const MOVE_FAILED_HOLD_MS = 5_000;

/** The routing key a message was published with, even after moves through retry tiers. */
export function originalRoutingKey(message: Pick<ConsumeMessage, 'fields' | 'properties'>): string {
  const stored = (message.properties.headers as MessagePropertyHeaders | undefined)?.[MESSAGE_HEADERS.routingKey];
  return typeof stored === 'string' ? stored : message.fields.routingKey;
}

/** Transient failures a message has had so far (its attempt header). */
export function attemptOf(message: Pick<ConsumeMessage, 'properties'>): number {
  const value = Number((message.properties.headers as MessagePropertyHeaders | undefined)?.[MESSAGE_HEADERS.attempt] ?? 0);
  return Number.isInteger(value) && value > 0 ? value : 0;
}

/**
 * A NestJS transport on RabbitMQ for `@ConsumeEvent(routingKey)` handlers: acks after the handler resolved;
 * a transient failure moves the message to a retry tier, a permanent one to `<queue>.parked` (confirmed first).
 */
export class AmqpTransport extends Server implements CustomTransportStrategy {
  private channel?: Channel;
  private confirm?: ConfirmChannel;

  constructor(private readonly options: AmqpTransportOptions) {
    super();
  }

  /** Nest adds each handler here; one not declared with `@ConsumeEvent` (its errors would reach us replaced) stops the start. */
  override addHandler(pattern: unknown, callback: MessageHandler, isEventHandler = false, extras: Record<string, unknown> = {}): void {
    if (!isEventHandler || !isConsumeEventHandler(extras)) {
      throw new Error(`the handler of ${JSON.stringify(pattern)} must be declared with @ConsumeEvent to be served from RabbitMQ`);
    }
    super.addHandler(pattern, callback, isEventHandler, extras);
  }

  listen(callback: () => void): void {
    void this.options.client.addSetup((model) => this.consume(model)).then(callback, callback);
  }

  private async consume(model: ChannelModel): Promise<void> {
    const channel = await model.createChannel();
    channel.on('error', (err: Error) => this.options.logger.warn({ err: err.message }, 'consumer channel error'));
    const confirm = await model.createConfirmChannel();
    confirm.on('error', (err: Error) => this.options.logger.warn({ err: err.message }, 'consumer confirm channel error'));
    await channel.prefetch(this.options.prefetch);
    const channels: ConsumerChannels = { channel, confirm };
    for (const spec of this.options.queues) {
      await declareQueue(channel, spec);
      await channel.consume(spec.queue, (message) => message && void this.handle(channels, spec, message));
    }
    this.channel = channel;
    this.confirm = confirm;
  }

  /** Handles one delivery from `spec.queue`. Never rejects: every outcome is settled or logged. */
  async handle(channels: ConsumerChannels, spec: QueueSpec, message: ConsumeMessage): Promise<void> {
    const routingKey = originalRoutingKey(message);
    const attempt = attemptOf(message);
    const log = this.options.logger.child({
      queue: spec.queue,
      routing_key: routingKey,
      message_id: message.properties.messageId,
      attempt,
    });
    const timer = this.options.metrics?.handlingDuration.startTimer({ queue: spec.queue });
    const done = (outcome: HandlingOutcome) => {
      timer?.({ outcome });
      if (outcome !== 'handled') this.options.metrics?.failures.inc({ queue: spec.queue, kind: outcome });
    };
    try {
      const handler: MessageHandler | undefined = this.getHandlerByPattern(routingKey) ?? undefined;
      if (!handler) throw new InvalidMessageError(`no handler for routing key ${routingKey}`);
      let payload: unknown;
      try {
        payload = JSON.parse(message.content.toString('utf8'));
      } catch {
        throw new InvalidMessageError('the body is not JSON');
      }
      const context: AmqpMessageContext = {
        routingKey,
        queue: spec.queue,
        messageId: message.properties.messageId,
        redelivered: message.fields.redelivered,
        attempt,
      };
      const result = await handler(payload, context);
      if (result instanceof Observable) await lastValueFrom(result, { defaultValue: undefined });
      done('handled');
      this.settle(log, 'ack', () => channels.channel.ack(message));
    } catch (err) {
      const failure = classifyFailure(err);
      done(failure.kind === 'permanent' ? 'poison' : 'transient');
      try {
        await this.failed(channels, spec, message, failure, err, log);
      } catch (unexpected) {
        log.error({ err: (unexpected as Error)?.message }, 'could not settle a failed message; the broker redelivers it');
      }
    }
  }

  private async failed(
    channels: ConsumerChannels,
    spec: QueueSpec,
    message: ConsumeMessage,
    failure: Failure,
    err: unknown,
    log: Logger,
  ): Promise<void> {
    const routingKey = originalRoutingKey(message);
    const headers: MessagePropertyHeaders = { ...(message.properties.headers as MessagePropertyHeaders | undefined) };
    for (const name of BROKER_HEADERS) delete headers[name];
    headers[MESSAGE_HEADERS.routingKey] = routingKey;
    headers[MESSAGE_HEADERS.firstFailureAt] ??= new Date().toISOString();
    if (failure.kind === 'permanent') {
      log.error({ reason: failure.reason }, 'message parked: it can never be processed');
      headers[MESSAGE_HEADERS.parkReason] = failure.reason.slice(0, 500);
      headers[MESSAGE_HEADERS.parkedAt] = new Date().toISOString();
      const moved = await this.move(channels.confirm, parkingQueue(spec.queue), message, headers, log);
      // Without the move, the queue dead-letters it to the same parking queue.
      this.settle(log, moved ? 'ack' : 'nack', () =>
        moved ? channels.channel.ack(message) : channels.channel.nack(message, false, false),
      );
      return;
    }
    const attempt = attemptOf(message) + 1;
    const delayMs = retryDelay(spec.retryDelaysMs ?? RETRY_DELAYS_MS, attempt);
    const details = { reason: failure.reason, retry_in_ms: delayMs };
    if (failure.recognised) log.warn(details, 'message handling failed for a transient reason; it will be retried');
    else
      log.error(
        { ...details, err: err instanceof Error ? `${err.name}: ${err.message}` : String(err) },
        'message handling failed unexpectedly; it will be retried',
      );
    headers[MESSAGE_HEADERS.attempt] = attempt;
    if (await this.move(channels.confirm, retryQueue(spec.queue, delayMs), message, headers, log)) {
      this.settle(log, 'ack', () => channels.channel.ack(message));
      return;
    }
    // The broker is away or refused the move: hold the message a while, then give it back.
    await new Promise((resolve) => setTimeout(resolve, Math.min(delayMs, MOVE_FAILED_HOLD_MS)));
    this.settle(log, 'nack', () => channels.channel.nack(message, false, true));
  }

  /** Publishes a copy of `message` to `queue` (default exchange) and waits for the confirm; false if it was not confirmed. */
  private async move(
    confirm: ConsumerChannels['confirm'],
    queue: string,
    message: ConsumeMessage,
    headers: MessagePropertyHeaders,
    log: Logger,
  ): Promise<boolean> {
    try {
      await new Promise<void>((resolve, reject) => {
        const { messageId, contentType, correlationId, timestamp, type, appId } = message.properties;
        confirm.publish(
          '',
          queue,
          message.content,
          { persistent: true, messageId, contentType, correlationId, timestamp, type, appId, headers },
          (err: unknown) => (err ? reject(err instanceof Error ? err : new Error('not confirmed')) : resolve()),
        );
      });
      return true;
    } catch (err) {
      log.warn({ err: (err as Error)?.message, to: queue }, 'could not move the message; it stays with the broker');
      return false;
    }
  }

  /** An ack or nack on a closed channel throws: the broker redelivers the message, so log and go on. */
  private settle(log: Logger, what: 'ack' | 'nack', action: () => void): void {
    try {
      action();
    } catch (err) {
      log.warn({ err: (err as Error)?.message }, `${what} failed (the channel is closed); the broker redelivers the message`);
    }
  }

  async close(): Promise<void> {
    const [channel, confirm] = [this.channel, this.confirm];
    this.channel = undefined;
    this.confirm = undefined;
    await Promise.all([closeWithin(channel?.close()), closeWithin(confirm?.close())]);
  }

  on(): void {
    // Connection events are logged by AmqpClient.
  }

  unwrap<T>(): T {
    return this.channel as T;
  }
}
