import { messagingConfigSpec, outboxConfigSpec } from '@svc/messaging';
import { databaseConfigSpec } from '@svc/persistence';
import { Config, serviceConfigSpec } from '@svc/platform';

export const knowledgeApiConfigSpec = {
  ...serviceConfigSpec('knowledge-api', 'Port of knowledge-api (reached through the gateway; the assistant calls its search directly).'),
  ...messagingConfigSpec,
  ...outboxConfigSpec,
  ...databaseConfigSpec('knowledge-api owns schema `knowledge` (pieces; it LISTENs there for their changes)'),
};

export type KnowledgeApiConfig = Config<typeof knowledgeApiConfigSpec>;
