import { AppDefinition } from '@svc/platform';
import { knowledgeApiConfigSpec } from './knowledge-api.config';
import { KnowledgeApiModule } from './knowledge-api.module';

export const app: AppDefinition<typeof knowledgeApiConfigSpec> = {
  name: 'knowledge-api',
  configSpec: knowledgeApiConfigSpec,
  module: (config, logger) => KnowledgeApiModule.forRoot(config, logger),
};
