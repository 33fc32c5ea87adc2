import { AppDefinition } from '@svc/platform';
import { gatewayConfigSpec, trustProxyOption } from './gateway.config';
import { GatewayModule } from './gateway.module';
import { GatewayPipeline } from './gateway.pipeline';
import { serveWhoamiFromFastify, WhoamiController } from './whoami.controller';

export const app: AppDefinition<typeof gatewayConfigSpec> = {
  name: 'gateway',
  configSpec: gatewayConfigSpec,
  globalPrefix: 'api/v1',
  // The client address that failed authentications are counted by (request.ip).
  serverOptions: (config) => ({ trustProxy: trustProxyOption(config.TRUST_PROXY) }),
  module: (config, logger) => GatewayModule.forRoot(config, logger),
  configure: (nest, fastify) => {
    nest.get(GatewayPipeline).install(fastify);
    serveWhoamiFromFastify(fastify, nest.get(WhoamiController));
  },
};
