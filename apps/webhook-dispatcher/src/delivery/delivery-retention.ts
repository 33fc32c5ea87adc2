import { Injectable } from '@nestjs/common';
import { PruneJobFor } from '@svc/jobs';
import type { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { DeliveriesRepository } from './deliveries.repository';

/** Finished deliveries and their attempts are kept like the feed's events, then pruned. */
@Injectable()
export class DeliveryRetention extends PruneJobFor(DeliveriesRepository, 'delivery-retention', (config: WebhookDispatcherConfig) => ({
  what: 'deliveries',
  retentionDays: config.WEBHOOK_RETENTION_DAYS,
  intervalMs: config.WEBHOOK_PRUNE_INTERVAL_MS,
})) {}
