import { messagingConfigSpec, outboxConfigSpec } from '@svc/messaging';
import { DEFAULT_DATABASE_URL } from '@svc/persistence';
import { baseConfigSpec, bool, Config, count, internalAuthConfigSpec, port, url } from '@svc/platform';

export const knowledgeApiConfigSpec = {
  ...baseConfigSpec,
  ...internalAuthConfigSpec,
  ...messagingConfigSpec,
  ...outboxConfigSpec,
  PORT: port({ default: 3003, desc: 'Port of knowledge-api (reached through the gateway; the assistant calls its search directly).' }),
  DATABASE_URL: url({ default: DEFAULT_DATABASE_URL, desc: 'PostgreSQL; knowledge-api owns schema `knowledge` (pieces, their search index).' }),
  DATABASE_POOL_SIZE: count({ default: 10, desc: 'Connections in the PostgreSQL pool.' }),
  MIGRATE_ON_START: bool({ default: true, desc: 'Apply pending migrations at start (they also run as `npm run migrate`).' }),
};

export type KnowledgeApiConfig = Config<typeof knowledgeApiConfigSpec>;
