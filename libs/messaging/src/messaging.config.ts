import { count, millis, url } from '@svc/platform';

/** Settings of every app that talks to RabbitMQ (spread into the app's own spec). */
export const messagingConfigSpec = {
  RABBITMQ_URL: url({
    default: 'amqp://guest:guest@127.0.0.1:5672',
    desc: 'RabbitMQ (AMQP 0-9-1). Reconnects with backoff after a broker restart.',
  }),
};

/** Settings of an app with a transactional outbox (the relay that publishes it). */
export const outboxConfigSpec = {
  OUTBOX_POLL_INTERVAL_MS: millis(60_000)({
    default: 1_000,
    desc: 'How often the outbox relay looks for unsent rows besides being woken by NOTIFY.',
  }),
  OUTBOX_BATCH_SIZE: count({ default: 200, desc: 'Outbox rows the relay claims and publishes per round.' }),
};

/** Settings of an app that consumes queues. */
export const consumerConfigSpec = {
  RABBITMQ_PREFETCH: count({ default: 64, desc: 'Unacknowledged messages a consumer holds at once (its concurrency).' }),
};
