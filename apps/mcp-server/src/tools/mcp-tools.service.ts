import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { ErrorBody, ErrorDetail, GatewayContext, WriteCountResponse } from '@svc/contracts';
import { InternalHttpClient, InternalResponse } from '@svc/internal-clients';
import { ApiError } from '@svc/platform';
import { OpenApiDocument, OperationShape, operationShape } from './openapi-schemas';
import { PARITY_TOOLS, ParityToolSpec, ToolUpstream } from './parity-tools';

/** A tool ready to list and call: its words, its REST operation's shape, and whether it writes. */
interface CatalogTool {
  spec: ParityToolSpec;
  shape: OperationShape;
  write: boolean;
}

/** The tools built from the public API's OpenAPI document (fails at once if an operation is missing). */
export class ToolCatalog {
  private readonly tools = new Map<string, CatalogTool>();
  readonly listed: Tool[];

  constructor(document: OpenApiDocument) {
    for (const spec of PARITY_TOOLS) {
      const shape = operationShape(document, spec.operation.method, spec.operation.path, spec.renames);
      this.tools.set(spec.name, { spec, shape, write: spec.operation.method !== 'GET' });
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
  return { isError: true, structuredContent: { ...body }, content: [{ type: 'text', text: JSON.stringify(body) }], ...(meta ? { _meta: meta } : {}) };
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
  let path = spec.via ?? spec.operation.path;
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
  return { path: search ? `${path}?${search}` : path, ...(shape.bodyProperties === null ? {} : { body: Object.fromEntries(rest) }) };
}

/**
 * Lists and calls the tools for one verified caller. A tool calls the same service route as its
 * REST operation, with a context signed for that service naming the caller's account and key,
 * and answers exactly the REST body (`structuredContent`, and the same JSON as text). A write
 * tool first counts one write in the key's limits at the gateway; over them it answers
 * `rate_limited` with the wait, and nothing is written.
 */
export class McpToolsService {
  constructor(
    private readonly clients: Record<ToolUpstream, InternalHttpClient>,
    private readonly catalog: () => Promise<ToolCatalog>,
  ) {}

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
      const response = await this.clients[tool.spec.upstream].call(tool.spec.operation.method, path, context, body);
      return this.resultOf(tool, response);
    } catch (err) {
      if (err instanceof ApiError) return failure(errorBody(err.code, err.message, err.details));
      throw err;
    }
  }

  /** Undefined when the write may go ahead; otherwise the tool's `rate_limited` answer. */
  private async countWrite(context: GatewayContext): Promise<CallToolResult | undefined> {
    const gateway = this.clients.gateway;
    const response = await gateway.call('POST', '/internal/writes', context);
    const decision = response.body as WriteCountResponse | undefined;
    if (response.status !== 200 || typeof decision?.allowed !== 'boolean') throw gateway.unavailable(context, `write count: status ${response.status}`);
    if (decision.allowed || !decision.limited) return undefined;
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
