import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Inject, Injectable } from '@nestjs/common';
import { ErrorBody, ErrorDetail, GatewayContext, WriteCountResponse } from '@svc/contracts';
import { InternalHttpClient, InternalResponse } from '@svc/internal-clients';
import { ApiError } from '@svc/platform';
import { CHAT_TOOLS, ChatToolSpec, PATH_ID_SCHEMA } from './chat-tools';
import { dtoSchema } from './dto-schemas';
import { OpenApiDocument, OperationShape, operationShape } from './openapi-schemas';
import { PARITY_TOOLS, ToolAnnotations, ToolUpstream } from './parity-tools';

/** The keep-alive clients to the services the tools call, one per upstream. */
export const TOOL_CLIENTS = Symbol('mcp upstream clients');
export type ToolClients = Record<ToolUpstream, InternalHttpClient>;

/** A tool ready to list and call: its words, the route it calls, its shape, and whether it writes. */
interface CatalogTool {
  spec: { name: string; title: string; description: string; annotations: ToolAnnotations; done?: string };
  upstream: ToolUpstream;
  method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  shape: OperationShape;
  write: boolean;
  /** Body fields the tool sets itself. */
  fixed?: Record<string, unknown>;
}

/** A chat tool's shape: its path arguments (ids), and the query or body DTO's schema. */
function chatShape(spec: ChatToolSpec): OperationShape {
  const pathParameters = Object.entries(spec.pathArguments ?? {}).map(([argument, parameter]) => ({ argument, parameter }));
  const fromDto = spec.query ?? spec.body;
  const dto = fromDto ? dtoSchema(fromDto) : { type: 'object' as const, properties: {} };
  const fixed = new Set(Object.keys(spec.fixed ?? {}));
  const dtoProperties = Object.keys(dto.properties).filter((name) => !fixed.has(name));
  const properties = {
    ...Object.fromEntries(pathParameters.map(({ argument }) => [argument, PATH_ID_SCHEMA])),
    ...Object.fromEntries(dtoProperties.map((name) => [name, dto.properties[name]])),
  };
  const required = [
    ...pathParameters.map(({ argument }) => argument),
    ...((dto['required'] as string[] | undefined) ?? []).filter((name) => !fixed.has(name)),
  ];
  return {
    pathParameters,
    queryParameters: spec.query ? dtoProperties : [],
    bodyProperties: spec.body ? dtoProperties : null,
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
  };
}

/** The tools: the API's operations from the OpenAPI document, the back-office tools from their DTOs. */
export class ToolCatalog {
  private readonly tools = new Map<string, CatalogTool>();
  readonly listed: Tool[];

  constructor(document: OpenApiDocument) {
    for (const spec of PARITY_TOOLS) {
      const { method, path } = spec.operation;
      const shape = operationShape(document, method, path, spec.renames);
      this.tools.set(spec.name, { spec, upstream: spec.upstream, method, path: spec.via ?? path, shape, write: method !== 'GET' });
    }
    for (const spec of CHAT_TOOLS) {
      this.tools.set(spec.name, {
        spec,
        upstream: spec.upstream ?? 'chat',
        method: spec.method,
        path: spec.path,
        shape: chatShape(spec),
        write: spec.write,
        fixed: spec.fixed,
      });
    }
    this.listed = [...this.tools.values()].map(({ spec, shape }) => ({
      name: spec.name,
      title: spec.title,
      description: spec.description,
      inputSchema: shape.inputSchema,
      ...(shape.outputSchema ? { outputSchema: shape.outputSchema } : {}),
      annotations: { title: spec.title, ...spec.annotations },
    }));
  }

  get(name: string): CatalogTool | undefined {
    return this.tools.get(name);
  }
}

function errorBody(code: ErrorBody['error']['code'], message: string, details?: ErrorDetail[]): ErrorBody {
  return { error: { code, message, ...(details?.length ? { details } : {}) } };
}

/** A failed call: `isError` with the API's `{error}` body, as structured content and as text. */
function failure(body: ErrorBody, meta?: Record<string, unknown>): CallToolResult {
  return {
    isError: true,
    structuredContent: { ...body },
    content: [{ type: 'text', text: JSON.stringify(body) }],
    ...(meta ? { _meta: meta } : {}),
  };
}

/** `_meta` for an error the REST API answers with Retry-After: the seconds to wait, as for `rate_limited`. */
function retryHint(err: ApiError): Record<string, unknown> | undefined {
  const seconds = Number(err.headers['retry-after']);
  return Number.isFinite(seconds) && seconds > 0 ? { retry_after_seconds: seconds } : undefined;
}

function isErrorBody(body: unknown): body is ErrorBody {
  const error = (body as Partial<ErrorBody> | null)?.error;
  return typeof error === 'object' && error !== null && typeof error.code === 'string' && typeof error.message === 'string';
}

/** A path or query value as the REST API receives it in the URL. */
function urlValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** The URL and body of one REST call from a tool's arguments; a problem with the arguments → the API's validation_failed. */
function requestOf(tool: CatalogTool, args: Record<string, unknown>): { path: string; body?: unknown } {
  const { spec, shape } = tool;
  const problems: ErrorDetail[] = [];
  let path = tool.path;
  const used = new Set<string>();
  for (const { argument, parameter } of shape.pathParameters) {
    used.add(argument);
    const value = urlValue(args[argument]);
    if (value === undefined || value === '') problems.push({ path: argument, message: `${argument} is required (a non-empty string)` });
    else path = path.replace(`{${parameter}}`, encodeURIComponent(value));
  }
  const query = new URLSearchParams();
  for (const name of shape.queryParameters) {
    used.add(name);
    const raw = args[name];
    if (raw === undefined || raw === null) continue;
    const value = urlValue(raw);
    if (value === undefined) problems.push({ path: name, message: `${name} must be a string or a number` });
    else query.set(name, value);
  }
  const rest = Object.entries(args).filter(([name]) => !used.has(name));
  if (shape.bodyProperties === null) {
    for (const [name] of rest) problems.push({ path: name, message: `${name} is not an argument of ${spec.name}` });
  }
  if (problems.length > 0) throw new ApiError('validation_failed', 'The arguments are not valid.', problems);
  const search = query.toString();
  return {
    path: search ? `${path}?${search}` : path,
    ...(shape.bodyProperties === null ? {} : { body: { ...Object.fromEntries(rest), ...tool.fixed } }),
  };
}

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

/** Lists and calls the tools for one caller: the REST operation's route and body; a write is counted at the gateway first. */
@Injectable()
export class McpToolsService {
  private readonly catalog: () => Promise<ToolCatalog>;

  constructor(@Inject(TOOL_CLIENTS) private readonly clients: ToolClients) {
    this.catalog = catalogLoader(clients.gateway);
  }

  async list(): Promise<Tool[]> {
    return (await this.catalog()).listed;
  }

  async call(name: string, args: Record<string, unknown>, context: GatewayContext): Promise<CallToolResult> {
    const tool = (await this.catalog()).get(name);
    if (!tool) return failure(errorBody('not_found', `There is no tool named ${name}; list the tools to see them.`));
    try {
      const { path, body } = requestOf(tool, args);
      if (tool.write) {
        const refused = await this.countWrite(context);
        if (refused) return refused;
      }
      const response = await this.clients[tool.upstream].call(tool.method, path, context, body);
      return this.resultOf(tool, response);
    } catch (err) {
      // A service that did not answer (`unavailable`) says when to retry, as its 503's Retry-After does.
      if (err instanceof ApiError) return failure(errorBody(err.code, err.message, err.details), retryHint(err));
      throw err;
    }
  }

  /** Undefined when the write may go ahead; otherwise the tool's `rate_limited` answer. */
  private async countWrite(context: GatewayContext): Promise<CallToolResult | undefined> {
    const gateway = this.clients.gateway;
    const response = await gateway.call('POST', '/internal/writes', context);
    const decision = response.body as WriteCountResponse | undefined;
    if (response.status !== 200 || typeof decision?.allowed !== 'boolean')
      throw gateway.unavailable(context, `write count: status ${response.status}`);
    if (decision.allowed) return undefined;
    const wait = decision.retry_after_seconds;
    return failure(errorBody('rate_limited', `Too many writes; retry in ${wait} s.`), { retry_after_seconds: wait });
  }

  private resultOf(tool: CatalogTool, response: InternalResponse): CallToolResult {
    const { status, body } = response;
    if (status >= 400) {
      return failure(isErrorBody(body) ? body : errorBody('internal_error', 'Something went wrong on our side. It has been logged.'));
    }
    if (body === undefined) return { content: [{ type: 'text', text: tool.spec.done ?? 'Done.' }] };
    return { structuredContent: body as Record<string, unknown>, content: [{ type: 'text', text: JSON.stringify(body) }] };
  }
}
