import { DynamicModule, Module } from '@nestjs/common';
import { parseSearchShard } from '@svc/contracts';
import { ReadinessService } from '@svc/platform';
import { DataSource } from 'typeorm';
import { serviceStack } from '@svc/messaging';
import { repositoryProviders } from '@svc/persistence';
import type { Logger } from 'pino';
import { KnowledgeApiConfig } from './knowledge-api.config';
import { KNOWLEDGE_MIGRATIONS, KNOWLEDGE_SCHEMA } from './migrations';
import { PiecesController } from './pieces/pieces.controller';
import { PiecesRepository } from './pieces/pieces.repository';
import { PiecesService } from './pieces/pieces.service';
import { SearchIndex } from './search/search-index';
import { SearchController } from './search/search.controller';
import { SearchRepository } from './search/search.repository';
import { SearchService } from './search/search.service';
import { TaughtController } from './taught/taught.controller';
import { TaughtRepository } from './taught/taught.repository';
import { TaughtService } from './taught/taught.service';

/** knowledge-api: the accounts' knowledge pieces, what the team taught, and the assistant's search over them (in memory, `SearchIndex`). */
@Module({
  controllers: [PiecesController, SearchController, TaughtController],
  providers: [...repositoryProviders(PiecesRepository, SearchRepository, TaughtRepository), PiecesService, SearchService, TaughtService],
})
export class KnowledgeApiModule {
  /** With its stack: the platform, schema `knowledge` (migrated at start), RabbitMQ with the outbox relay; reached through the gateway. */
  static forRoot(config: KnowledgeApiConfig, logger: Logger): DynamicModule {
    const stack = { config, logger, schema: KNOWLEDGE_SCHEMA, migrations: KNOWLEDGE_MIGRATIONS, behindGateway: true };
    return {
      module: KnowledgeApiModule,
      imports: serviceStack('knowledge-api', stack),
      providers: [
        {
          provide: SearchIndex,
          inject: [DataSource, ReadinessService],
          useFactory: (db: DataSource, readiness: ReadinessService) => {
            const index = new SearchIndex(
              new SearchRepository(db),
              config.DATABASE_URL,
              logger.child({ component: 'search-index' }),
              parseSearchShard(config.SEARCH_SHARD),
            );
            // Without its LISTEN connection a replica still answers, from an index that may miss other replicas' writes.
            readiness.register(
              'search-index',
              async () => {
                if (!index.listening) throw new Error('not listening for changes');
              },
              { critical: false },
            );
            return index;
          },
        },
      ],
    };
  }
}
