import { Inject, Injectable } from '@nestjs/common';
import { PgNotifications } from '@svc/jobs';
import { APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import type { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { DELIVERIES_CHANNEL } from './deliveries.repository';
import { WEBHOOK_DISPATCHER_CONFIG } from '../webhook-dispatcher.config';

/** New deliveries announced by processes that do not deliver: they wake this process's worker. */
@Injectable()
export class DeliveryNotifications extends PgNotifications {
  constructor(@Inject(WEBHOOK_DISPATCHER_CONFIG) config: WebhookDispatcherConfig, @Inject(APP_LOGGER) logger: Logger) {
    super({ databaseUrl: config.DATABASE_URL, channel: DELIVERIES_CHANNEL, applicationName: 'webhook-dispatcher-listen' }, logger);
  }
}
