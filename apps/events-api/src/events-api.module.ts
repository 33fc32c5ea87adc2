import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule } from '@svc/messaging';
import { PersistenceModule } from '@svc/persistence';
import { PlatformModule } from '@svc/platform';
import type { Logger } from 'pino';
import { AppendBatcher } from './append-batcher';
import { DomainConsumer } from './domain.consumer';
import { EventLog } from './event-log';
import { EventsApiConfig } from './events-api.config';
import { EventsController } from './events.controller';
import { EVENTS_MIGRATIONS, EVENTS_SCHEMA } from './migrations';
import { RetentionJob } from './retention';

@Module({})
export class EventsApiModule {
  static forRoot(config: EventsApiConfig, logger: Logger): DynamicModule {
    return {
      module: EventsApiModule,
      imports: [
        PlatformModule.forRoot({ config, logger, behindGateway: true }),
        PersistenceModule.forRoot({
          schema: EVENTS_SCHEMA,
          url: config.DATABASE_URL,
          migrations: EVENTS_MIGRATIONS,
          poolSize: config.DATABASE_POOL_SIZE,
          migrateOnStart: config.MIGRATE_ON_START,
          applicationName: 'events-api',
        }),
        MessagingModule.forRoot({
          url: config.RABBITMQ_URL,
          connectionName: 'events-api',
          outbox: {
            schema: EVENTS_SCHEMA,
            databaseUrl: config.DATABASE_URL,
            batchSize: config.OUTBOX_BATCH_SIZE,
            pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
            retentionMs: config.OUTBOX_RETENTION_MS,
          },
        }),
      ],
      controllers: [EventsController, DomainConsumer],
      providers: [EventLog, AppendBatcher, RetentionJob],
    };
  }
}
