import { AppDefinition, trustProxyOption } from '@svc/platform';
import { gatewayConfigSpec } from './gateway.config';
import { GatewayModule } from './gateway.module';
import { GatewayPipeline } from './gateway.pipeline';
import { GatewayProxy } from './proxy/gateway-proxy';

export const app: AppDefinition<typeof gatewayConfigSpec> = {
  name: 'gateway',
  configSpec: gatewayConfigSpec,
  globalPrefix: 'api/v1',
  // The client address (request.ip) the services are told in X-Forwarded-For.
  serverOptions: (config) => ({ trustProxy: trustProxyOption(config.TRUST_PROXY) }),
  module: (config, logger) => GatewayModule.forRoot(config, logger),
  // The pipeline's hooks, then the proxy: the only raw routes, one Fastify plugin (docs/architecture.md "HTTP routes").
  // Not awaited: it loads with the app, once Nest has set the error handler its routes take.
  configure: (nest, fastify) => {
    nest.get(GatewayPipeline).install(fastify);
    void fastify.register(nest.get(GatewayProxy).plugin);
  },
};
