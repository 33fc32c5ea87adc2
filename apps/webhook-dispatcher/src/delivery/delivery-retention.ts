import { Inject, Injectable } from '@nestjs/common';
import { PruneJob } from '@svc/jobs';
import { APP_CONFIG, APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import type { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { DeliveriesRepository } from './deliveries.repository';

/** Finished deliveries and their attempts are kept like the feed's events, then pruned. */
@Injectable()
export class DeliveryRetention extends PruneJob {
  constructor(deliveries: DeliveriesRepository, @Inject(APP_CONFIG) config: WebhookDispatcherConfig, @Inject(APP_LOGGER) logger: Logger) {
    super(
      deliveries,
      { what: 'deliveries', retentionDays: config.WEBHOOK_RETENTION_DAYS, intervalMs: config.WEBHOOK_PRUNE_INTERVAL_MS },
      logger.child({ component: 'delivery-retention' }),
    );
  }
}
