import { DynamicModule } from '@nestjs/common';
import { DatabaseConfig, PersistenceModule, SchemaOptions } from '@svc/persistence';
import { PlatformModule, PlatformOptions } from '@svc/platform';
import type { Logger } from 'pino';
import { MessagingAppConfig, MessagingModule } from './messaging.module';

export interface ServiceStackOptions {
  config: PlatformOptions['config'] & DatabaseConfig & MessagingAppConfig;
  logger: Logger;
  /** The schema the service owns (its tables and its outbox) and its migrations. */
  schema: string;
  migrations: SchemaOptions['migrations'];
  /** Reached only through the gateway: calls without a context signed for this service are refused. */
  behindGateway?: boolean;
}

/**
 * The modules of a service that owns a schema and publishes through its outbox: the platform
 * (config, logs, health, metrics, errors), its database (migrated at start) and RabbitMQ (with the
 * relay of its outbox).
 */
export function serviceStack(
  name: string,
  { config, logger, schema, migrations, behindGateway = false }: ServiceStackOptions,
): DynamicModule[] {
  return [
    PlatformModule.forRoot({ config, logger, ...(behindGateway ? { behindGateway: name } : {}) }),
    PersistenceModule.forApp(name, config, schema, migrations),
    MessagingModule.forApp(name, config, schema),
  ];
}
