import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { GatewayContext } from '@svc/contracts';
import { ApiError, GATEWAY_CONTEXT_HEADER, InternalAuth } from '@svc/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { McpToolsService } from './tools/mcp-tools.service';

export const MCP_PATH = '/mcp';
const SERVER_INFO = { name: 'svc-chat', title: 'Customer chat service', version: '1.0.0' };
const INSTRUCTIONS =
  'Tools of a customer chat service for one business account: its customers and consents, knowledge pieces the assistant answers from, the event feed and webhooks. Results are the REST API\'s JSON bodies; a failure is isError with {"error":{"code","message","details"?}}. Writes share the key\'s limits with the REST API (120 a minute).';

/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless (no session: every request stands alone, as the
 * gateway checks each one), answered as JSON. Each request gets its own SDK server and transport,
 * bound to the caller the gateway's signed context names. GET (a stream to resume) and DELETE (a
 * session to end) have nothing to act on: 405.
 */
export class McpEndpoint {
  constructor(
    private readonly auth: InternalAuth,
    private readonly tools: McpToolsService,
  ) {}

  install(fastify: FastifyInstance): void {
    fastify.post(MCP_PATH, async (request, reply) => {
      const caller = await this.callerOf(request);
      const server = this.serverFor(caller);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.raw.once('close', () => void server.close());
      await server.connect(transport);
      reply.hijack();
      await transport.handleRequest(request.raw, reply.raw, request.body);
    });
    for (const method of ['GET', 'DELETE'] as const) {
      fastify.route({
        method,
        url: MCP_PATH,
        handler: async () => {
          throw new ApiError('method_not_allowed', 'This MCP server is stateless: send each JSON-RPC message with POST.', undefined, { allow: 'POST' });
        },
      });
    }
  }

  private async callerOf(request: FastifyRequest): Promise<GatewayContext> {
    const token = request.headers[GATEWAY_CONTEXT_HEADER];
    const context = typeof token === 'string' ? await this.auth.verify(token, 'mcp-server').catch(() => undefined) : undefined;
    if (!context) throw new ApiError('unauthorized', 'This service is reached only through the API gateway.');
    return context;
  }

  private serverFor(caller: GatewayContext): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await this.tools.list() }));
    server.setRequestHandler(CallToolRequestSchema, (request) => this.tools.call(request.params.name, request.params.arguments ?? {}, caller));
    return server;
  }
}
