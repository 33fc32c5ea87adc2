import { AppDefinition, trustProxyOption } from '@svc/platform';
import { gatewayConfigSpec } from './gateway.config';
import { GatewayModule } from './gateway.module';
import { GatewayPipeline } from './gateway.pipeline';
import { ChatProxy } from './proxy/chat-proxy';
import { ConsoleProxy } from './proxy/console-proxy';

export const app: AppDefinition<typeof gatewayConfigSpec> = {
  name: 'gateway',
  configSpec: gatewayConfigSpec,
  globalPrefix: 'api/v1',
  // The client address (request.ip) the services are told in X-Forwarded-For.
  serverOptions: (config) => ({ trustProxy: trustProxyOption(config.TRUST_PROXY) }),
  module: (config, logger) => GatewayModule.forRoot(config, logger),
  configure: (nest, fastify) => {
    nest.get(GatewayPipeline).install(fastify);
    nest.get(ChatProxy).install(fastify);
    nest.get(ConsoleProxy).install(fastify);
  },
};
