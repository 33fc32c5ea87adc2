import { DynamicModule } from '@nestjs/common';
import { appStack, AppStackOptions } from '@svc/persistence';
import { MessagingAppConfig, MessagingModule } from './messaging.module';

export interface ServiceStackOptions extends AppStackOptions {
  config: AppStackOptions['config'] & MessagingAppConfig;
  /** The app publishes through its outbox (in its schema); false: it only consumes (default true). */
  outbox?: boolean;
}

/** The modules of a service with a schema and RabbitMQ: `appStack` plus messaging and its outbox relay. */
export function serviceStack(name: string, options: ServiceStackOptions): DynamicModule[] {
  const { config, schema, outbox = true } = options;
  return [...appStack(name, options), MessagingModule.forApp(name, config, outbox ? schema : undefined)];
}
