import { DynamicModule, Module, Type } from '@nestjs/common';
import { serviceStack } from '@svc/messaging';
import { closedOnShutdown, loadTestSupport, TEST_SUPPORT_DIR } from '@svc/platform';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { DeliveriesRepository } from './delivery/deliveries.repository';
import { DeliveryMetrics } from './delivery/delivery-metrics';
import { DeliveryNotifications } from './delivery/delivery-notifications';
import { DeliveryRetention } from './delivery/delivery-retention';
import { DeliveryService } from './delivery/delivery.service';
import { DeliveryWorker } from './delivery/delivery-worker';
import { ErasuresConsumer } from './delivery/erasures.consumer';
import { EventsConsumer } from './delivery/events.consumer';
import { WebhookSender } from './delivery/webhook-sender';
import { EndpointsRepository } from './endpoints/endpoints.repository';
import { EndpointsService } from './endpoints/endpoints.service';
import { FailingEndpointsJob } from './endpoints/failing-endpoints.job';
import { WebhooksController } from './endpoints/webhooks.controller';
import { WEBHOOKS_MIGRATIONS, WEBHOOKS_SCHEMA } from './migrations';
import { AddressPolicy } from './security/address-policy';
import { ConfiguredSecretBox, SecretBox } from './security/secret-box';
import { WEBHOOK_DISPATCHER_CONFIG, WebhookDispatcherConfig } from './webhook-dispatcher.config';

/** `POST /internal/events`, for the end-to-end suites only (see `loadTestSupport`). */
function testSupportControllers(config: WebhookDispatcherConfig): Type[] {
  const support = loadTestSupport<{ TestEventsController: Type }>(
    config.NODE_ENV,
    join(__dirname, TEST_SUPPORT_DIR, 'test-events.controller'),
  );
  return support ? [support.TestEventsController] : [];
}

@Module({})
export class WebhookDispatcherModule {
  static forRoot(config: WebhookDispatcherConfig, logger: Logger): DynamicModule {
    return {
      module: WebhookDispatcherModule,
      imports: serviceStack('webhook-dispatcher', {
        config,
        logger,
        schema: WEBHOOKS_SCHEMA,
        migrations: WEBHOOKS_MIGRATIONS,
        behindGateway: true,
        outbox: false,
      }),
      controllers: [WebhooksController, EventsConsumer, ErasuresConsumer, ...testSupportControllers(config)],
      providers: [
        { provide: WEBHOOK_DISPATCHER_CONFIG, useValue: config },
        AddressPolicy,
        { provide: SecretBox, useClass: ConfiguredSecretBox },
        EndpointsRepository,
        EndpointsService,
        FailingEndpointsJob,
        DeliveriesRepository,
        DeliveryService,
        DeliveryMetrics,
        DeliveryNotifications,
        DeliveryWorker,
        DeliveryRetention,
        {
          // The HTTP client of attempts and test sends, closed once the listener and the worker have drained.
          provide: WebhookSender,
          inject: [AddressPolicy, WEBHOOK_DISPATCHER_CONFIG],
          useFactory: (policy: AddressPolicy, { WEBHOOK_TIMEOUT_MS, WEBHOOK_CA_FILE }: WebhookDispatcherConfig) =>
            new WebhookSender({
              policy,
              timeoutMs: WEBHOOK_TIMEOUT_MS,
              extraCa: WEBHOOK_CA_FILE ? readFileSync(WEBHOOK_CA_FILE, 'utf8') : undefined,
            }),
        },
        closedOnShutdown(WebhookSender),
      ],
      exports: [DeliveryService],
    };
  }
}
