import { BeforeApplicationShutdown, DynamicModule, Injectable, Module, OnApplicationBootstrap, Type } from '@nestjs/common';
import { serviceStack } from '@svc/messaging';
import { loadTestSupport, MetricsService, pruneJobProvider, TEST_SUPPORT_DIR } from '@svc/platform';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { DeliveriesRepository } from './delivery/deliveries.repository';
import { deliveryMetrics } from './delivery/delivery-metrics';
import { DeliveryNotifications } from './delivery/delivery-notifications';
import { DeliveryService } from './delivery/delivery.service';
import { DeliveryWorker } from './delivery/delivery-worker';
import { ErasuresConsumer } from './delivery/erasures.consumer';
import { EventsConsumer } from './delivery/events.consumer';
import { parseRetrySchedule } from './delivery/retry-schedule';
import { WebhookSender } from './delivery/webhook-sender';
import { EndpointsRepository } from './endpoints/endpoints.repository';
import { EndpointsService, SecretOverlap } from './endpoints/endpoints.service';
import { FailingEndpointsJob } from './endpoints/failing-endpoints.job';
import { WebhooksController } from './endpoints/webhooks.controller';
import { WEBHOOKS_MIGRATIONS, WEBHOOKS_SCHEMA } from './migrations';
import { AddressPolicy } from './security/address-policy';
import { parseKeyList, SecretBox } from './security/secret-box';
import { backgroundDrainMs, WebhookDispatcherConfig } from './webhook-dispatcher.config';

/**
 * Starts delivering (and pruning) once the app is up; on SIGTERM stops claiming and lets attempts
 * in flight finish and be recorded before the pool closes (what does not finish is retried after
 * its lease).
 */
@Injectable()
class DeliveryLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly worker: DeliveryWorker,
    private readonly notifications: DeliveryNotifications,
    private readonly sender: WebhookSender,
    private readonly graceMs: number,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.worker.enabled) return;
    this.notifications.onNotify(() => this.worker.wake());
    this.notifications.start();
    this.worker.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.worker.stop(this.graceMs);
    await this.notifications.close();
    await this.sender.close();
  }
}

/** `POST /internal/events`, for the end-to-end suites only (see `loadTestSupport`). */
function testSupportControllers(config: WebhookDispatcherConfig): Type[] {
  const support = loadTestSupport<{ InternalEventsController: Type }>(
    config.NODE_ENV,
    join(__dirname, TEST_SUPPORT_DIR, 'internal-events.controller'),
  );
  return support ? [support.InternalEventsController] : [];
}

@Module({})
export class WebhookDispatcherModule {
  static forRoot(config: WebhookDispatcherConfig, logger: Logger): DynamicModule {
    const policy = new AddressPolicy(config.WEBHOOK_ALLOW_PRIVATE_NETWORKS);
    const leaseMs = backgroundDrainMs(config);
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
        { provide: AddressPolicy, useValue: policy },
        {
          provide: SecretBox,
          useFactory: () =>
            new SecretBox({
              current: config.WEBHOOK_SECRET_KEY,
              currentId: config.WEBHOOK_SECRET_KEY_ID,
              previous: parseKeyList(config.WEBHOOK_SECRET_KEYS_PREVIOUS),
            }),
        },
        EndpointsRepository,
        EndpointsService,
        { provide: SecretOverlap, useValue: new SecretOverlap(config.WEBHOOK_SECRET_OVERLAP_MS) },
        {
          provide: FailingEndpointsJob,
          inject: [EndpointsRepository],
          useFactory: (endpoints: EndpointsRepository) =>
            new FailingEndpointsJob(endpoints, config.WEBHOOK_DISABLE_AFTER_MS, logger.child({ component: 'failing-endpoints' })),
        },
        DeliveriesRepository,
        DeliveryService,
        {
          provide: WebhookSender,
          useFactory: () =>
            new WebhookSender({
              policy,
              timeoutMs: config.WEBHOOK_TIMEOUT_MS,
              extraCa: config.WEBHOOK_CA_FILE ? readFileSync(config.WEBHOOK_CA_FILE, 'utf8') : undefined,
            }),
        },
        { provide: DeliveryNotifications, useFactory: () => new DeliveryNotifications(config.DATABASE_URL, logger) },
        {
          provide: DeliveryWorker,
          inject: [DeliveriesRepository, WebhookSender, SecretBox, MetricsService, DataSource],
          useFactory: (
            deliveries: DeliveriesRepository,
            sender: WebhookSender,
            secrets: SecretBox,
            metrics: MetricsService,
            db: DataSource,
          ) =>
            new DeliveryWorker(
              deliveries,
              sender,
              secrets,
              {
                concurrency: config.WEBHOOK_CONCURRENCY,
                maxInFlightPerEndpoint: config.WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
                maxInFlightPerAccount: config.WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT,
                leaseMs,
                pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
                retrySchedule: parseRetrySchedule(config.WEBHOOK_RETRY_SCHEDULE),
              },
              logger.child({ component: 'delivery-worker' }),
              deliveryMetrics(metrics, db),
            ),
        },
        // Finished deliveries and their attempts are kept like the feed's events.
        pruneJobProvider(
          DeliveriesRepository,
          { what: 'deliveries', retentionDays: config.WEBHOOK_RETENTION_DAYS, intervalMs: config.WEBHOOK_PRUNE_INTERVAL_MS },
          logger.child({ component: 'delivery-retention' }),
        ),
        {
          provide: DeliveryLifecycle,
          inject: [DeliveryWorker, DeliveryNotifications, WebhookSender],
          useFactory: (worker: DeliveryWorker, notifications: DeliveryNotifications, sender: WebhookSender) =>
            new DeliveryLifecycle(worker, notifications, sender, leaseMs),
        },
      ],
      exports: [DeliveryService],
    };
  }
}
