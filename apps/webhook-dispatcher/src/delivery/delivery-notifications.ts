import { Inject, Injectable } from '@nestjs/common';
import { PgNotifications } from '@svc/jobs';
import { APP_CONFIG, APP_LOGGER } from '@svc/platform';
import type { Logger } from 'pino';
import type { WebhookDispatcherConfig } from '../webhook-dispatcher.config';
import { DELIVERIES_CHANNEL } from './deliveries.repository';

/** New deliveries announced by processes that do not deliver: they wake this process's worker. */
@Injectable()
export class DeliveryNotifications extends PgNotifications {
  constructor(@Inject(APP_CONFIG) config: WebhookDispatcherConfig, @Inject(APP_LOGGER) logger: Logger) {
    super({ databaseUrl: config.DATABASE_URL, channel: DELIVERIES_CHANNEL, applicationName: 'webhook-dispatcher-listen' }, logger);
  }
}
