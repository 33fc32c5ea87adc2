import { DynamicModule, Module } from '@nestjs/common';
import { serviceStack } from '@svc/messaging';
import { repositoryProviders } from '@svc/persistence';
import type { Logger } from 'pino';
import { KnowledgeApiConfig } from './knowledge-api.config';
import { KNOWLEDGE_MIGRATIONS, KNOWLEDGE_SCHEMA } from './migrations';
import { PiecesController } from './pieces/pieces.controller';
import { PiecesRepository } from './pieces/pieces.repository';
import { PiecesService } from './pieces/pieces.service';
import { SearchController } from './search/search.controller';
import { SearchRepository } from './search/search.repository';
import { SearchService } from './search/search.service';

/** knowledge-api: the accounts' knowledge pieces and the assistant's search over them. */
@Module({
  controllers: [PiecesController, SearchController],
  providers: [...repositoryProviders(PiecesRepository, SearchRepository), PiecesService, SearchService],
})
export class KnowledgeApiModule {
  /** With its stack: the platform, schema `knowledge` (migrated at start), RabbitMQ with the outbox relay; reached through the gateway. */
  static forRoot(config: KnowledgeApiConfig, logger: Logger): DynamicModule {
    const stack = { config, logger, schema: KNOWLEDGE_SCHEMA, migrations: KNOWLEDGE_MIGRATIONS, behindGateway: true };
    return { module: KnowledgeApiModule, imports: serviceStack('knowledge-api', stack) };
  }
}
