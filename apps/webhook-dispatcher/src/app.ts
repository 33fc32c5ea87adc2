import { consumeQueues, WEBHOOK_DISPATCHER_ERASURES_QUEUE, WEBHOOK_DISPATCHER_QUEUE } from '@svc/messaging';
import { AppDefinition } from '@svc/platform';
import { webhookDispatcherConfigSpec } from './webhook-dispatcher.config';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';

export const app: AppDefinition<typeof webhookDispatcherConfigSpec> = {
  name: 'webhook-dispatcher',
  configSpec: webhookDispatcherConfigSpec,
  module: (config, logger) => WebhookDispatcherModule.forRoot(config, logger),
  configure: (nest, _fastify, config) =>
    consumeQueues(nest, [WEBHOOK_DISPATCHER_QUEUE, WEBHOOK_DISPATCHER_ERASURES_QUEUE], config.RABBITMQ_PREFETCH),
};
