import { consumerConfigSpec, messagingConfigSpec, outboxConfigSpec } from '@svc/messaging';
import { databaseConfigSpec } from '@svc/persistence';
import { Config, count, millis, serviceConfigSpec } from '@svc/platform';

export const eventsApiConfigSpec = {
  ...serviceConfigSpec('events-api', 'Port of events-api (reached through the gateway).'),
  ...messagingConfigSpec,
  ...outboxConfigSpec,
  ...consumerConfigSpec,
  ...databaseConfigSpec('events-api owns schema `events` (the event log)'),
  EVENTS_RETENTION_DAYS: count({ default: 30, desc: 'Days an event stays in the feed before the prune job removes it.' }),
  EVENTS_PRUNE_INTERVAL_MS: millis()({ default: 600_000, desc: 'How often the prune job runs.' }),
};

export type EventsApiConfig = Config<typeof eventsApiConfigSpec>;
