import { EVENT_KINDS } from '@svc/contracts';
import { consumeQueues, DOMAIN_EXCHANGE } from '@svc/messaging';
import { AppDefinition } from '@svc/platform';
import { eventsApiConfigSpec } from './events-api.config';
import { EventsApiModule } from './events-api.module';

/** The queue events-api consumes: every public event kind, and erasures. */
export const EVENTS_API_QUEUE = { queue: 'events-api.domain', exchange: DOMAIN_EXCHANGE, bindings: [...EVENT_KINDS, 'contact.erased'] };

export const app: AppDefinition<typeof eventsApiConfigSpec> = {
  name: 'events-api',
  configSpec: eventsApiConfigSpec,
  module: (config, logger) => EventsApiModule.forRoot(config, logger),
  configure: (nest, _fastify, config) => consumeQueues(nest, [EVENTS_API_QUEUE], config.RABBITMQ_PREFETCH),
};
