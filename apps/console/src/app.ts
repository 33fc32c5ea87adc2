import { AppDefinition } from '@svc/platform';
import { consoleConfigSpec } from './console.config';
import { ConsoleModule } from './console.module';
import { LiveResponses } from './members/live-responses';
import { MembersService } from './members/members.service';
import { serveServiceRoutes } from './upstreams/service-routes';
import { serveTeamActions } from './upstreams/team-actions';
import { Upstreams } from './upstreams/upstreams';
import { serveFrontEnd } from './static/spa';

export const app: AppDefinition<typeof consoleConfigSpec> = {
  name: 'console',
  configSpec: consoleConfigSpec,
  // The client address sign-in failures are counted by: the gateway (or the Ingress) in front.
  serverOptions: () => ({ trustProxy: 1 }),
  module: (config, logger) => ConsoleModule.forRoot(config, logger),
  configure: (nest, fastify, config) => {
    const members = nest.get(MembersService);
    const upstreams = nest.get(Upstreams);
    const origin = new URL(config.APP_URL).origin;
    serveServiceRoutes(fastify, members, upstreams, origin);
    serveTeamActions(fastify, members, upstreams, nest.get(LiveResponses), origin);
    serveFrontEnd(fastify);
  },
};
