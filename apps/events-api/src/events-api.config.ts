import { consumerConfigSpec, messagingConfigSpec, outboxConfigSpec } from '@svc/messaging';
import { DEFAULT_DATABASE_URL } from '@svc/persistence';
import { baseConfigSpec, bool, Config, count, internalAuthConfigSpec, millis, port, url } from '@svc/platform';

export const eventsApiConfigSpec = {
  ...baseConfigSpec,
  ...internalAuthConfigSpec,
  ...messagingConfigSpec,
  ...outboxConfigSpec,
  ...consumerConfigSpec,
  PORT: port({ default: 3004, desc: 'Port of events-api (reached through the gateway).' }),
  DATABASE_URL: url({ default: DEFAULT_DATABASE_URL, desc: 'PostgreSQL; events-api owns schema `events` (the event log).' }),
  DATABASE_POOL_SIZE: count({ default: 10, desc: 'Connections in the PostgreSQL pool.' }),
  MIGRATE_ON_START: bool({ default: true, desc: 'Apply pending migrations at start (they also run as `npm run migrate`).' }),
  EVENTS_RETENTION_DAYS: count({ default: 30, desc: 'Days an event stays in the feed before the prune job removes it.' }),
  EVENTS_PRUNE_INTERVAL_MS: millis()({ default: 600_000, desc: 'How often the prune job runs.' }),
};

export type EventsApiConfig = Config<typeof eventsApiConfigSpec>;
