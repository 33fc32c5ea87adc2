import { DynamicModule, Module } from '@nestjs/common';
import { MessagingModule } from '@svc/messaging';
import { PersistenceModule } from '@svc/persistence';
import { PlatformModule } from '@svc/platform';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { KnowledgeApiConfig } from './knowledge-api.config';
import { KNOWLEDGE_MIGRATIONS, KNOWLEDGE_SCHEMA } from './migrations';
import { PiecesController } from './pieces/pieces.controller';
import { PiecesRepository } from './pieces/pieces.repository';
import { PiecesService } from './pieces/pieces.service';
import { SearchController } from './search/search.controller';
import { SearchRepository } from './search/search.repository';
import { SearchService } from './search/search.service';

@Module({})
export class KnowledgeApiModule {
  static forRoot(config: KnowledgeApiConfig, logger: Logger): DynamicModule {
    return {
      module: KnowledgeApiModule,
      imports: [
        PlatformModule.forRoot({ config, logger, behindGateway: 'knowledge-api' }),
        PersistenceModule.forApp('knowledge-api', config, KNOWLEDGE_SCHEMA, KNOWLEDGE_MIGRATIONS),
        MessagingModule.forApp('knowledge-api', config, KNOWLEDGE_SCHEMA),
      ],
      controllers: [PiecesController, SearchController],
      providers: [
        { provide: PiecesRepository, inject: [DataSource], useFactory: (db: DataSource) => new PiecesRepository(db) },
        { provide: SearchRepository, inject: [DataSource], useFactory: (db: DataSource) => new SearchRepository(db) },
        PiecesService,
        SearchService,
      ],
    };
  }
}
