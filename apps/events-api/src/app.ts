import { consumeQueues, EVENTS_API_QUEUE } from '@svc/messaging';
import { AppDefinition } from '@svc/platform';
import { eventsApiConfigSpec } from './events-api.config';
import { EventsApiModule } from './events-api.module';

export const app: AppDefinition<typeof eventsApiConfigSpec> = {
  name: 'events-api',
  configSpec: eventsApiConfigSpec,
  module: (config, logger) => EventsApiModule.forRoot(config, logger),
  configure: (nest, _fastify, config) => consumeQueues(nest, [EVENTS_API_QUEUE], config.RABBITMQ_PREFETCH),
};
