import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { GatewayContext } from '@svc/contracts';
import { InternalHttpClient } from '@svc/internal-clients';
import { APP_LOGGER, InternalAuth, PlatformModule, serviceUrlSetting } from '@svc/platform';
import type { Logger } from 'pino';
import { McpEndpoint } from './mcp.endpoint';
import { McpServerConfig } from './mcp-server.config';
import { OpenApiDocument } from './tools/openapi-schemas';
import { McpToolsService, ToolCatalog } from './tools/mcp-tools.service';
import { TOOL_UPSTREAMS, ToolUpstream } from './tools/parity-tools';

const CLIENTS = Symbol('mcp upstream clients');
type Clients = Record<ToolUpstream, InternalHttpClient>;

/** No account is named when the document is fetched: the route is public. */
const DOCUMENT_CONTEXT: GatewayContext = { account: { id: '', name: '', plan: 'scale' }, keyId: '', requestId: 'mcp-openapi' };

/** The tool catalog from the gateway's OpenAPI document, fetched at the first call (a failure: again at the next). */
function catalogLoader(gateway: InternalHttpClient): () => Promise<ToolCatalog> {
  let loading: Promise<ToolCatalog> | undefined;
  return () => {
    loading ??= gateway.call('GET', '/api/v1/openapi.json', DOCUMENT_CONTEXT).then((response) => {
      if (response.status !== 200) throw gateway.unavailable(DOCUMENT_CONTEXT, `openapi.json: status ${response.status}`);
      return new ToolCatalog(response.body as OpenApiDocument);
    });
    loading.catch(() => (loading = undefined));
    return loading;
  };
}

/** The keep-alive pools to the services, closed after the listener has drained. */
@Injectable()
class ClientsLifecycle implements OnApplicationShutdown {
  constructor(@Inject(CLIENTS) private readonly clients: Clients) {}

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(Object.values(this.clients).map((client) => client.close()));
  }
}

@Module({})
export class McpServerModule {
  static forRoot(config: McpServerConfig, logger: Logger): DynamicModule {
    return {
      module: McpServerModule,
      imports: [PlatformModule.forRoot({ config, logger })],
      providers: [
        {
          provide: CLIENTS,
          inject: [InternalAuth, APP_LOGGER],
          useFactory: (auth: InternalAuth, log: Logger): Clients =>
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
            ) as Clients,
        },
        {
          provide: McpToolsService,
          inject: [CLIENTS],
          useFactory: (clients: Clients) => new McpToolsService(clients, catalogLoader(clients.gateway)),
        },
        {
          provide: McpEndpoint,
          inject: [InternalAuth, McpToolsService],
          useFactory: (auth: InternalAuth, tools: McpToolsService) => new McpEndpoint(auth, tools),
        },
        ClientsLifecycle,
      ],
    };
  }
}
