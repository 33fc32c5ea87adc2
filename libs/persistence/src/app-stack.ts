import { DynamicModule } from '@nestjs/common';
import { PlatformModule, PlatformOptions } from '@svc/platform';
import type { Logger } from 'pino';
import type { SchemaOptions } from './data-source';
import type { DatabaseConfig } from './persistence.config';
import { PersistenceModule } from './persistence.module';

export interface AppStackOptions {
  config: PlatformOptions['config'] & DatabaseConfig;
  logger: Logger;
  /** The schema the app owns and its migrations. */
  schema: string;
  migrations: SchemaOptions['migrations'];
  /** Reached only through the gateway: calls without a context signed for this app are refused. */
  behindGateway?: boolean;
}

/** The modules of an app that owns a schema: the platform and its database (migrated at start). */
export function appStack(name: string, { config, logger, schema, migrations, behindGateway = false }: AppStackOptions): DynamicModule[] {
  return [PlatformModule.forRoot({ config, logger, name, behindGateway }), PersistenceModule.forApp(name, config, schema, migrations)];
}
