import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  JSONRPCMessage,
  JSONRPCMessageSchema,
  JSONRPCRequest,
  ListToolsRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import { Controller, Delete, Get, OnModuleInit, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { GatewayContext } from '@svc/contracts';
import { ApiError, Caller, GatewayContextGuard, InternalCallers } from '@svc/platform';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { ExchangeTransport } from './exchange.transport';
import { McpToolsService } from './tools/mcp-tools.service';

export const MCP_PATH = '/mcp';
const SERVER_INFO = { name: 'svc-chat', title: 'Customer chat service', version: '1.0.0' };
const INSTRUCTIONS =
  'Tools of a customer chat service for one business account: its customers and consents, knowledge pieces the assistant answers from, the event feed and webhooks. Results are the REST API\'s JSON bodies; a failure is isError with {"error":{"code","message","details"?}}. Writes share the key\'s limits with the REST API (120 a minute).';

/** An HTTP answer to a POST: its status and JSON body (none for 202). */
export interface PostAnswer {
  status: number;
  body?: unknown;
}

function refusal(status: number, code: number, message: string): PostAnswer {
  return { status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}

const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => 'method' in message && 'id' in message;

/** The JSON-RPC requests of one POST, or its refusal by the SDK's Streamable HTTP rules (406, 415, 400, 202). */
export function readPost(headers: IncomingHttpHeaders, body: unknown): JSONRPCRequest[] | PostAnswer {
  const accept = headers.accept;
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
    return refusal(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  if (!isJsonContentType(headers['content-type']))
    return refusal(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  if (body === undefined) return refusal(400, -32700, 'Parse error: Invalid JSON');
  const raw = Array.isArray(body) ? body : [body];
  if (raw.length > MAX_BATCH_SIZE) return refusal(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  const messages: JSONRPCMessage[] = [];
  for (const item of raw) {
    const parsed = JSONRPCMessageSchema.safeParse(item);
    if (!parsed.success) return refusal(400, -32700, 'Parse error: Invalid JSON-RPC message');
    messages.push(parsed.data);
  }
  const initializing = messages.filter((message) => isRequest(message) && message.method === 'initialize').length;
  if (initializing > 1 || (initializing === 1 && messages.length > 1))
    return refusal(400, -32600, 'Invalid Request: Only one initialization request is allowed');
  const version = headers['mcp-protocol-version'];
  if (initializing === 0 && typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    return refusal(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
    );
  }
  const requests = messages.filter(isRequest);
  return requests.length > 0 ? requests : { status: 202 };
}

/**
 * The request schemas of the methods served: params they refuse are -32602 (the SDK would answer -32603, an internal error).
 * A Map: the method is the caller's (`__proto__`, `constructor` are unknown methods, which the SDK answers -32601).
 */
const PARAMS = new Map<string, typeof InitializeRequestSchema | typeof ListToolsRequestSchema | typeof CallToolRequestSchema>([
  ['initialize', InitializeRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

/** A JSON-RPC error answering `request` when its params do not fit its method's schema. */
export function invalidParams(request: JSONRPCRequest): JSONRPCMessage | undefined {
  const schema = PARAMS.get(request.method);
  const parsed = schema?.safeParse(request);
  if (!parsed || parsed.success) return undefined;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  return { jsonrpc: '2.0', id: request.id, error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${issues}` } };
}

const STATELESS = 'This MCP server is stateless: send each JSON-RPC message with POST.';

/**
 * `POST /mcp`, stateless, answered as JSON; GET and DELETE are 405. The POST needs a context the
 * gateway signed (it checked the API key); another app's: 403. See docs/adr/011-mcp-one-sdk-server.md
 */
@ApiExcludeController()
@Controller()
export class McpEndpoint implements OnModuleInit {
  private readonly transport = new ExchangeTransport();
  private readonly server: Server;

  constructor(tools: McpToolsService) {
    // Ajv, for elicitation answers only (never asked for here): one instance, not one per server.
    this.server = new Server(SERVER_INFO, {
      capabilities: { tools: {} },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: new AjvJsonSchemaValidator(),
    });
    this.server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await tools.list() }));
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      tools.call(request.params.name, request.params.arguments ?? {}, this.transport.callerOf(extra.requestId)),
    );
  }

  onModuleInit(): Promise<void> {
    return this.server.connect(this.transport);
  }

  @Post(MCP_PATH)
  @UseGuards(GatewayContextGuard)
  @InternalCallers('gateway')
  async post(@Caller() caller: GatewayContext, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<FastifyReply> {
    const requests = readPost(request.headers, request.body);
    if (!Array.isArray(requests)) {
      reply.code(requests.status);
      if (requests.body === undefined) return reply.send();
      return reply.type('application/json').send(JSON.stringify(requests.body));
    }
    const refused = requests.map(invalidParams);
    const served = requests.filter((_, index) => refused[index] === undefined);
    const responses = [
      ...refused.filter((answer) => answer !== undefined),
      ...(served.length > 0 ? await this.transport.exchange(served, caller) : []),
    ];
    return reply
      .code(200)
      .type('application/json')
      .send(JSON.stringify(responses.length === 1 ? responses[0] : responses));
  }

  @Get(MCP_PATH)
  get(): never {
    throw new ApiError('method_not_allowed', STATELESS, undefined, { allow: 'POST' });
  }

  @Delete(MCP_PATH)
  delete(): never {
    throw new ApiError('method_not_allowed', STATELESS, undefined, { allow: 'POST' });
  }
}
