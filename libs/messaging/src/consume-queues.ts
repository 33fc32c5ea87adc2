import { INestApplication } from '@nestjs/common';
import { APP_LOGGER, MetricsService } from '@svc/platform';
import type { Logger } from 'pino';
import { AmqpClient } from './amqp-client';
import { consumerMetrics } from './metrics';
import type { QueueSpec } from './topology';
import { AmqpTransport } from './transport';

/**
 * Serves the app's `@ConsumeEvent` handlers from `queues` (a hybrid app: Nest connects the
 * transport and calls its `listen`); stops after the HTTP listener has drained.
 */
export async function consumeQueues(app: INestApplication, queues: QueueSpec[], prefetch: number): Promise<void> {
  const logger = app.get<Logger>(APP_LOGGER);
  const client = app.get(AmqpClient);
  const metrics = consumerMetrics(
    app.get(MetricsService),
    client,
    queues.map((q) => q.queue),
  );
  const strategy = new AmqpTransport({ client, queues, prefetch, logger: logger.child({ component: 'consumer' }), metrics });
  // The app's global filters, pipes and guards are HTTP's: none applies to messages. Each handler
  // brings its own filter (`@ConsumeEvent`).
  app.connectMicroservice({ strategy }, { inheritAppConfig: false });
  await app.startAllMicroservices();
}
