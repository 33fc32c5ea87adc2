import { DynamicModule, Module } from '@nestjs/common';
import { serviceStack } from '@svc/messaging';
import type { Logger } from 'pino';
import { AppendBatcher } from './append-batcher';
import { DomainConsumer, ErasureConsumer } from './domain.consumer';
import { EventsRepository } from './events.repository';
import { EventsRetention } from './events-retention';
import { EventsApiConfig } from './events-api.config';
import { EventsController } from './events.controller';
import { EventsService } from './events.service';
import { InternalEventsController } from './internal-events.controller';
import { EVENTS_MIGRATIONS, EVENTS_SCHEMA } from './migrations';

@Module({})
export class EventsApiModule {
  static forRoot(config: EventsApiConfig, logger: Logger): DynamicModule {
    return {
      module: EventsApiModule,
      imports: serviceStack('events-api', { config, logger, schema: EVENTS_SCHEMA, migrations: EVENTS_MIGRATIONS, behindGateway: true }),
      controllers: [EventsController, InternalEventsController, DomainConsumer, ErasureConsumer],
      providers: [EventsRepository, AppendBatcher, EventsService, EventsRetention],
    };
  }
}
