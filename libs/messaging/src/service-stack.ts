import { DynamicModule } from '@nestjs/common';
import { appStack, AppStackOptions } from '@svc/persistence';
import { MessagingAppConfig, MessagingModule } from './messaging.module';

export interface ServiceStackOptions extends AppStackOptions {
  config: AppStackOptions['config'] & MessagingAppConfig;
  /** The app publishes through its outbox (in its schema); false: it only consumes (default true). */
  outbox?: boolean;
}

/**
 * The modules of a service that owns a schema and talks to RabbitMQ: the platform and its database
 * (`appStack`), and RabbitMQ with the relay of its outbox.
 */
export function serviceStack(name: string, options: ServiceStackOptions): DynamicModule[] {
  const { config, schema, outbox = true } = options;
  return [...appStack(name, options), MessagingModule.forApp(name, config, outbox ? schema : undefined)];
}
