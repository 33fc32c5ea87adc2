import { AccountsRepository, AccountsService } from '@svc/accounts';
import { AppDefinition, InternalAuth, trustProxyOption } from '@svc/platform';
import { DataSource } from 'typeorm';
import { gatewayConfigSpec } from './gateway.config';
import { GatewayModule } from './gateway.module';
import { GatewayPipeline } from './gateway.pipeline';
import { serveMcpSupport } from './internal/mcp-support.routes';
import { serveConsoleRoutes } from './internal/console.route';
import { serveWidgetLookup } from './internal/widgets.route';
import { ChatProxy } from './proxy/chat-proxy';
import { ConsoleProxy } from './proxy/console-proxy';
import { serveWhoamiFromFastify, WhoamiController } from './whoami.controller';

export const app: AppDefinition<typeof gatewayConfigSpec> = {
  name: 'gateway',
  configSpec: gatewayConfigSpec,
  globalPrefix: 'api/v1',
  // The client address (request.ip) the services are told in X-Forwarded-For.
  serverOptions: (config) => ({ trustProxy: trustProxyOption(config.TRUST_PROXY) }),
  module: (config, logger) => GatewayModule.forRoot(config, logger),
  configure: (nest, fastify) => {
    nest.get(GatewayPipeline).install(fastify);
    serveWhoamiFromFastify(fastify, nest.get(WhoamiController));
    nest.get(ChatProxy).install(fastify);
    nest.get(ConsoleProxy).install(fastify);
    const accounts = new AccountsRepository(nest.get(DataSource));
    serveWidgetLookup(fastify, accounts, nest.get(InternalAuth));
    serveMcpSupport(fastify, accounts, nest.get(InternalAuth), nest.get(WhoamiController), nest.get(GatewayPipeline));
    serveConsoleRoutes(fastify, new AccountsService(accounts), nest.get(InternalAuth));
  },
};
