import { messagingConfigSpec, outboxConfigSpec } from '@svc/messaging';
import { databaseConfigSpec } from '@svc/persistence';
import { baseConfigSpec, Config, internalAuthConfigSpec, port } from '@svc/platform';

export const knowledgeApiConfigSpec = {
  ...baseConfigSpec,
  ...internalAuthConfigSpec,
  ...messagingConfigSpec,
  ...outboxConfigSpec,
  PORT: port({ default: 3003, desc: 'Port of knowledge-api (reached through the gateway; the assistant calls its search directly).' }),
  ...databaseConfigSpec('knowledge-api owns schema `knowledge` (pieces, their search index)'),
};

export type KnowledgeApiConfig = Config<typeof knowledgeApiConfigSpec>;
