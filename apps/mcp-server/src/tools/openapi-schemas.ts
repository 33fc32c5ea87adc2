/** A JSON Schema (draft 2020-12 / OpenAPI 3.1 flavour) as plain data. */
export type JsonSchema = { [keyword: string]: unknown };

interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface JsonContent {
  content?: { 'application/json'?: { schema?: JsonSchema } };
}

interface OpenApiOperation {
  summary?: string;
  parameters?: OpenApiParameter[];
  requestBody?: JsonContent;
  responses: Record<string, JsonContent>;
}

/** The parts of the public API's OpenAPI 3.1 document (GET /api/v1/openapi.json) the tools are built from. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** How one REST operation's input travels, and the schemas a tool shows for it. */
export interface OperationShape {
  /** Tool argument → OpenAPI path parameter, in the order of the path. */
  pathParameters: Array<{ argument: string; parameter: string }>;
  queryParameters: string[];
  /** The body's properties (sent as the JSON body), or null for an operation without a body. */
  bodyProperties: string[] | null;
  inputSchema: JsonSchema & { type: 'object' };
  /** The 2xx body or the error body; undefined for an operation that answers without a body (204). */
  outputSchema?: JsonSchema & { type: 'object' };
}

const COMPONENT_REF = '#/components/schemas/';

/** `schema` with every `$ref` to a component replaced by the component itself (the DTOs hold no cycles). */
export function inlineRefs(schema: unknown, components: Record<string, JsonSchema>, trail: string[] = []): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(item, components, trail));
  if (typeof schema !== 'object' || schema === null) return schema;
  const { $ref, ...rest } = schema as JsonSchema;
  if (typeof $ref === 'string') {
    const name = $ref.startsWith(COMPONENT_REF) ? $ref.slice(COMPONENT_REF.length) : '';
    const target = components[name];
    if (!target || trail.includes(name)) throw new Error(`cannot inline schema reference ${$ref}`);
    return { ...(inlineRefs(target, components, [...trail, name]) as JsonSchema), ...(inlineRefs(rest, components, trail) as JsonSchema) };
  }
  return Object.fromEntries(Object.entries(rest).map(([keyword, value]) => [keyword, inlineRefs(value, components, trail)]));
}

function schemaOf(content: JsonContent | undefined): JsonSchema | undefined {
  return content?.content?.['application/json']?.schema;
}

/** The tool shape of `method path`: parameters and body flattened into arguments (`renames`), the 2xx or error body out. */
export function operationShape(
  document: OpenApiDocument,
  method: string,
  path: string,
  renames: Record<string, string> = {},
): OperationShape {
  const operation = document.paths[path]?.[method.toLowerCase()];
  if (!operation) throw new Error(`the OpenAPI document has no ${method} ${path}`);
  const components = document.components.schemas;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const pathParameters: OperationShape['pathParameters'] = [];
  const queryParameters: string[] = [];
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    const argument = renames[parameter.name] ?? parameter.name;
    properties[argument] = inlineRefs(
      { ...(parameter.schema ?? {}), ...(parameter.description ? { description: parameter.description } : {}) },
      components,
    );
    if (parameter.in === 'path') {
      pathParameters.push({ argument, parameter: parameter.name });
      required.push(argument);
    } else {
      queryParameters.push(argument);
      if (parameter.required) required.push(argument);
    }
  }
  let bodyProperties: string[] | null = null;
  const body = schemaOf(operation.requestBody);
  if (body) {
    const inlined = inlineRefs(body, components) as JsonSchema;
    const bodyProps = (inlined['properties'] ?? {}) as Record<string, unknown>;
    bodyProperties = Object.keys(bodyProps);
    Object.assign(properties, bodyProps);
    required.push(...((inlined['required'] as string[] | undefined) ?? []));
  }
  const success = Object.entries(operation.responses).find(([status, response]) => status.startsWith('2') && schemaOf(response));
  const error = components['ErrorResponseDto'];
  if (!error) throw new Error('the OpenAPI document has no ErrorResponseDto');
  return {
    pathParameters,
    queryParameters,
    bodyProperties,
    inputSchema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false },
    ...(success
      ? { outputSchema: { type: 'object', anyOf: [inlineRefs(schemaOf(success[1]), components), inlineRefs(error, components)] } }
      : {}),
  };
}
