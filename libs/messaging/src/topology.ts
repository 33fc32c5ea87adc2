import { EVENT_KINDS } from '@svc/contracts';
import type { Channel } from 'amqplib';

/** Domain messages from producers (routing key = kind), consumed by events-api and others. */
export const DOMAIN_EXCHANGE = 'svc.domain';
/** Recorded public events with their feed id (routing key = kind), consumed by the dispatcher. */
export const EVENTS_EXCHANGE = 'svc.events';
/** Where a queue's rejected and over-delivered messages go, to the queue's parking lot. */
export const DEAD_LETTER_EXCHANGE = 'svc.dead-letter';

/** Waits of the retry tiers: the nth transient failure waits the nth (the last one repeats; attempts are unlimited). */
export const RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 30_000, 120_000, 600_000];

/** Headers the consumer sets on a message it moves to a retry tier or to the parking queue. */
export const MESSAGE_HEADERS = {
  /** Transient failures so far. */
  attempt: 'x-svc-attempt',
  /** The routing key the message was published with (moving it through queues replaces it). */
  routingKey: 'x-svc-routing-key',
  /** When the message first failed (ISO 8601). */
  firstFailureAt: 'x-svc-first-failure-at',
  /** Why it was parked (never personal data). */
  parkReason: 'x-svc-park-reason',
  /** When it was parked (ISO 8601). */
  parkedAt: 'x-svc-parked-at',
} as const;

export interface QueueSpec {
  /** Durable quorum queue, named after the consuming app: `events-api.domain`. */
  queue: string;
  exchange: string;
  /** Topic patterns bound on `exchange`. */
  bindings: string[];
  /** Deliveries before dead-lettering (default 5): a safety net for a process that dies mid-message. */
  deliveryLimit?: number;
  /** Waits of the retry tiers (tests shorten them). Default RETRY_DELAYS_MS. */
  retryDelaysMs?: readonly number[];
}

/*
 * The consumers' queues. Their names are part of the deployed topology: do not rename them without
 * moving what waits in them (their retry tiers and parking queues are named after them).
 */
/** events-api: every domain message (public events are appended, erasures applied). */
export const EVENTS_API_QUEUE: QueueSpec = {
  queue: 'events-api.domain',
  exchange: DOMAIN_EXCHANGE,
  bindings: [...EVENT_KINDS, 'contact.erased'],
};
/** webhook-dispatcher: every recorded public event events-api publishes. */
export const WEBHOOK_DISPATCHER_QUEUE: QueueSpec = {
  queue: 'webhook-dispatcher.events',
  exchange: EVENTS_EXCHANGE,
  bindings: [...EVENT_KINDS],
};
/** webhook-dispatcher: `contact.erased` from the domain exchange, on its own queue so it never waits behind events. */
export const WEBHOOK_DISPATCHER_ERASURES_QUEUE: QueueSpec = {
  queue: 'webhook-dispatcher.erasures',
  exchange: DOMAIN_EXCHANGE,
  bindings: ['contact.erased'],
};
/** chat: erasures, customers as they change (its model of them), and contacts-api's confirmations and consent changes (for analytics). */
export const CHAT_QUEUE: QueueSpec = {
  queue: 'chat.domain',
  exchange: DOMAIN_EXCHANGE,
  bindings: ['contact.erased', 'contact.changed', 'contact.confirmed', 'consent.granted', 'consent.withdrawn'],
};
/** Every consumer queue (the operator's `admin parked` commands look at their parking queues). */
export const CONSUMER_QUEUES: readonly QueueSpec[] = [
  EVENTS_API_QUEUE,
  WEBHOOK_DISPATCHER_QUEUE,
  WEBHOOK_DISPATCHER_ERASURES_QUEUE,
  CHAT_QUEUE,
];

/** The parking queue of `queue`: dead-lettered messages wait there for an operator. */
export function parkingQueue(queue: string): string {
  return `${queue}.parked`;
}

/** The retry tier of `queue` that holds a message `delayMs` before it goes back to `queue`. */
export function retryQueue(queue: string, delayMs: number): string {
  return `${queue}.retry.${delayMs}`;
}

/** The wait before attempt `attempt + 1` after `attempt` transient failures (1-based): the tier's, capped at the longest. */
export function retryDelay(delays: readonly number[], attempt: number): number {
  const index = Math.min(Math.max(attempt, 1), delays.length) - 1;
  return delays[index] as number;
}

export async function declareExchanges(channel: Channel): Promise<void> {
  await channel.assertExchange(DOMAIN_EXCHANGE, 'topic', { durable: true });
  await channel.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
  await channel.assertExchange(DEAD_LETTER_EXCHANGE, 'direct', { durable: true });
}

/** Declares the quorum queue, its bindings, parking queue and retry tiers (TTL queues dead-lettering back). Idempotent. */
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
  for (const delayMs of spec.retryDelaysMs ?? RETRY_DELAYS_MS) {
    await channel.assertQueue(retryQueue(spec.queue, delayMs), {
      durable: true,
      arguments: { 'x-message-ttl': delayMs, 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': spec.queue },
    });
  }
  for (const pattern of spec.bindings) await channel.bindQueue(spec.queue, spec.exchange, pattern);
}

/** Headers the broker adds on dead-lettering and delivery: a moved message starts without them. */
export const BROKER_HEADERS = [
  'x-death',
  'x-first-death-exchange',
  'x-first-death-queue',
  'x-first-death-reason',
  'x-last-death-exchange',
  'x-last-death-queue',
  'x-last-death-reason',
  'x-delivery-count',
];
