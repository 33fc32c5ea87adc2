import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { GatewayContext } from '@svc/contracts';
import { ApiError, GATEWAY_CONTEXT_HEADER, InternalAuth } from '@svc/platform';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { McpToolsService } from './tools/mcp-tools.service';

export const MCP_PATH = '/mcp';
const SERVER_INFO = { name: 'svc-chat', title: 'Customer chat service', version: '1.0.0' };
const INSTRUCTIONS =
  'Tools of a customer chat service for one business account: its customers and consents, knowledge pieces the assistant answers from, the event feed and webhooks. Results are the REST API\'s JSON bodies; a failure is isError with {"error":{"code","message","details"?}}. Writes share the key\'s limits with the REST API (120 a minute).';

/**
 * The JSON-schema validator every per-request server shares: left out, each `new Server` builds
 * its own Ajv instance (formats, meta-schemas), which cost more than the rest of a call. The SDK
 * uses it only to check elicitation answers; one instance caches what it compiles.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** The request headers the transport reads: content negotiation and the protocol revision. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version'] as const;

function transportHeaders(request: FastifyRequest): Headers {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return headers;
}

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
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      try {
        await server.connect(transport);
        // The SDK's web-standard transport, given the body Fastify has parsed and the headers it
        // reads (its Node wrapper would convert the whole request and response on every call).
        const response = await transport.handleRequest(new Request(`http://mcp-server${MCP_PATH}`, { method: 'POST', headers: transportHeaders(request) }), {
          parsedBody: request.body,
        });
        reply.code(response.status);
        response.headers.forEach((value, name) => void reply.header(name, value));
        return reply.send(await response.text());
      } finally {
        void server.close();
      }
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
    const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: SCHEMA_VALIDATOR });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await this.tools.list() }));
    server.setRequestHandler(CallToolRequestSchema, (request) => this.tools.call(request.params.name, request.params.arguments ?? {}, caller));
    return server;
  }
}
