import { Catch, INestApplication, RpcExceptionFilter } from '@nestjs/common';
import type { NestMicroservice } from '@nestjs/microservices';
import { APP_LOGGER, MetricsService } from '@svc/platform';
import type { Logger } from 'pino';
import { Observable, throwError } from 'rxjs';
import { AmqpClient } from './amqp-client';
import { consumerMetrics } from './metrics';
import type { QueueSpec } from './topology';
import { AmqpTransport } from './transport';

/** Event handlers see their own errors (the default filter would replace them with a generic object). */
@Catch()
class RethrowFilter implements RpcExceptionFilter<unknown> {
  catch(exception: unknown): Observable<never> {
    return throwError(() => exception);
  }
}

/** Serves the app's `@EventPattern` handlers from `queues`; stops after the HTTP listener has drained. */
export async function consumeQueues(app: INestApplication, queues: QueueSpec[], prefetch: number): Promise<void> {
  const logger = app.get<Logger>(APP_LOGGER);
  const client = app.get(AmqpClient);
  const metrics = consumerMetrics(
    app.get(MetricsService),
    client,
    queues.map((q) => q.queue),
  );
  const strategy = new AmqpTransport({ client, queues, prefetch, logger: logger.child({ component: 'consumer' }), metrics });
  // The filter must be in place before the handlers are wrapped (registerListeners); otherwise Nest's
  // default filter replaces every error with a generic object and no failure can be classified.
  const microservice = app.connectMicroservice({ strategy }, { inheritAppConfig: false, deferInitialization: true }) as NestMicroservice;
  microservice.useGlobalFilters(new RethrowFilter());
  microservice.registerListeners();
  // The app's modules are initialised with the app: what connectMicroservice does without deferral.
  microservice.setIsInitialized(true);
  microservice.setIsInitHookCalled(true);
  await app.startAllMicroservices();
}
