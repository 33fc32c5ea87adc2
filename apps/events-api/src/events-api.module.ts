import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule } from '@svc/messaging';
import { PersistenceModule } from '@svc/persistence';
import { PlatformModule, pruneJobProvider } from '@svc/platform';
import type { Logger } from 'pino';
import { AppendBatcher } from './append-batcher';
import { DomainConsumer } from './domain.consumer';
import { EventLog } from './event-log';
import { EventsApiConfig } from './events-api.config';
import { EventsController } from './events.controller';
import { InternalEventsController } from './internal-events.controller';
import { EVENTS_MIGRATIONS, EVENTS_SCHEMA } from './migrations';

@Module({})
export class EventsApiModule {
  static forRoot(config: EventsApiConfig, logger: Logger): DynamicModule {
    return {
      module: EventsApiModule,
      imports: [
        PlatformModule.forRoot({ config, logger, behindGateway: 'events-api' }),
        PersistenceModule.forApp('events-api', config, EVENTS_SCHEMA, EVENTS_MIGRATIONS),
        MessagingModule.forApp('events-api', config, EVENTS_SCHEMA),
      ],
      controllers: [EventsController, InternalEventsController, DomainConsumer],
      providers: [
        EventLog,
        AppendBatcher,
        pruneJobProvider(
          EventLog,
          { what: 'events', retentionDays: config.EVENTS_RETENTION_DAYS, intervalMs: config.EVENTS_PRUNE_INTERVAL_MS },
          logger.child({ component: 'events-retention' }),
        ),
      ],
    };
  }
}
