import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { InternalHttpClient } from '@svc/internal-clients';
import { APP_LOGGER, InternalAuth, PlatformModule, serviceUrlSetting } from '@svc/platform';
import type { Logger } from 'pino';
import { McpEndpoint } from './mcp.endpoint';
import { McpServerConfig } from './mcp-server.config';
import { McpToolsService, TOOL_CLIENTS, ToolClients } from './tools/mcp-tools.service';
import { TOOL_UPSTREAMS } from './tools/parity-tools';

/** The keep-alive pools to the services, closed after the listener has drained. */
@Injectable()
class ClientsLifecycle implements OnApplicationShutdown {
  constructor(@Inject(TOOL_CLIENTS) private readonly clients: ToolClients) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(Object.values(this.clients).map((client) => client.close()));
  }
}

@Module({})
export class McpServerModule {
  static forRoot(config: McpServerConfig, logger: Logger): DynamicModule {
    return {
      module: McpServerModule,
      imports: [PlatformModule.forRoot({ config, logger, name: 'mcp-server' })],
      controllers: [McpEndpoint],
      providers: [
        {
          provide: TOOL_CLIENTS,
          inject: [InternalAuth, APP_LOGGER],
          useFactory: (auth: InternalAuth, log: Logger): ToolClients =>
            Object.fromEntries(
              TOOL_UPSTREAMS.map((upstream) => [
                upstream,
                new InternalHttpClient({
                  url: config[serviceUrlSetting(upstream)],
                  auth,
                  timeoutMs: config.MCP_UPSTREAM_TIMEOUT_MS,
                  logger: log,
                  upstream,
                }),
              ]),
            ) as ToolClients,
        },
        McpToolsService,
        ClientsLifecycle,
      ],
    };
  }
}
