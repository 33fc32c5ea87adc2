import type { Channel } from 'amqplib';

/** Domain messages from producers (routing key = kind), consumed by events-api and others. */
export const DOMAIN_EXCHANGE = 'svc.domain';
/** Recorded public events with their feed id (routing key = kind), consumed by the dispatcher. */
export const EVENTS_EXCHANGE = 'svc.events';
/** Where a queue's rejected and over-delivered messages go, to the queue's parking lot. */
export const DEAD_LETTER_EXCHANGE = 'svc.dead-letter';

export interface QueueSpec {
  /** Durable quorum queue, named after the consuming app: `events-api.domain`. */
  queue: string;
  exchange: string;
  /** Topic patterns bound on `exchange`. */
  bindings: string[];
  /** Deliveries before a message is dead-lettered (poison message). Default 5. */
  deliveryLimit?: number;
}

/** The parking queue of `queue`: dead-lettered messages wait there for an operator. */
export function parkingQueue(queue: string): string {
  return `${queue}.parked`;
}

export async function declareExchanges(channel: Channel): Promise<void> {
  await channel.assertExchange(DOMAIN_EXCHANGE, 'topic', { durable: true });
  await channel.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
  await channel.assertExchange(DEAD_LETTER_EXCHANGE, 'direct', { durable: true });
}

/** Declares the queue (quorum, dead-lettered to its parking queue) and its bindings. Idempotent. */
export async function declareQueue(channel: Channel, spec: QueueSpec): Promise<void> {
  await declareExchanges(channel);
  const parked = parkingQueue(spec.queue);
  await channel.assertQueue(parked, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(parked, DEAD_LETTER_EXCHANGE, spec.queue);
  await channel.assertQueue(spec.queue, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-delivery-limit': spec.deliveryLimit ?? 5,
      'x-dead-letter-exchange': DEAD_LETTER_EXCHANGE,
      'x-dead-letter-routing-key': spec.queue,
    },
  });
  for (const pattern of spec.bindings) await channel.bindQueue(spec.queue, spec.exchange, pattern);
}
