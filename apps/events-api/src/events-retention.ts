import { Injectable } from '@nestjs/common';
import { PruneJobFor } from '@svc/jobs';
import type { EventsApiConfig } from './events-api.config';
import { EventsRepository } from './events.repository';

/** Events are kept EVENTS_RETENTION_DAYS, then pruned. */
@Injectable()
export class EventsRetention extends PruneJobFor(EventsRepository, 'events-retention', (config: EventsApiConfig) => ({
  what: 'events',
  retentionDays: config.EVENTS_RETENTION_DAYS,
  intervalMs: config.EVENTS_PRUNE_INTERVAL_MS,
})) {}
