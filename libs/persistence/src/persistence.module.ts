import { DynamicModule, FactoryProvider, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ReadinessService } from '@svc/platform';
import { DataSource } from 'typeorm';
import { createDataSource, migrate, SchemaOptions } from './data-source';
import type { DatabaseConfig } from './persistence.config';
import { execute, sql } from './statements';

export interface PersistenceOptions extends SchemaOptions {
  /** Apply pending migrations when the app starts (default true). */
  migrateOnStart?: boolean;
}

/** Providers for repositories made from the app's DataSource (`new Repository(db)`). */
export function repositoryProviders(...repositories: Array<new (db: DataSource) => object>): FactoryProvider[] {
  return repositories.map((repository) => ({
    provide: repository,
    inject: [DataSource],
    useFactory: (db: DataSource) => new repository(db),
  }));
}

@Injectable()
class DataSourceLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly readiness: ReadinessService,
  ) {}

  onModuleInit(): void {
    this.readiness.register('postgres', () => execute(this.dataSource, sql('persistence_ping')`SELECT 1`));
  }

  /** After the HTTP server has drained, never before: in-flight requests still need the pool. */
  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/** Gives an app its schema's DataSource, migrated at start, closed last on shutdown. */
@Module({})
export class PersistenceModule {
  /** The usual wiring from an app's database settings (`databaseConfigSpec`). */
  static forApp(name: string, config: DatabaseConfig, schema: string, migrations: SchemaOptions['migrations']): DynamicModule {
    return PersistenceModule.forRoot({
      schema,
      url: config.DATABASE_URL,
      migrations,
      poolSize: config.DATABASE_POOL_SIZE,
      migrateOnStart: config.MIGRATE_ON_START,
      applicationName: name,
    });
  }

  static forRoot(options: PersistenceOptions): DynamicModule {
    return {
      module: PersistenceModule,
      global: true,
      providers: [
        {
          provide: DataSource,
          useFactory: async () => {
            const dataSource = await createDataSource(options).initialize();
            if (options.migrateOnStart ?? true) await migrate(dataSource);
            return dataSource;
          },
        },
        DataSourceLifecycle,
      ],
      exports: [DataSource],
    };
  }
}
