import type { OpenAPIObject } from '@nestjs/swagger';
import { API_ROUTE_LIST, eventSchemas, INVALID_JSON } from '@svc/contracts';
import { webhooksSection } from './webhooks-section';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;
type Responses = Operation['responses'];

export interface ApiPart {
  /** The app whose controllers these routes are (its name). */
  app: string;
  document: OpenAPIObject;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const WRITES = new Set(['put', 'post', 'delete', 'patch']);
const ERROR = { $ref: '#/components/schemas/ErrorResponseDto' };

function errorResponse(description: string, code: string, message: string, headers?: Record<string, unknown>) {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema: ERROR, example: { error: { code, message } } } },
  };
}

const REQUEST_ID_HEADER = {
  'X-Request-Id': {
    description:
      'The id of this call in our logs: the one you sent, when it is 1 to 128 of `A-Z a-z 0-9 . _ : -`, otherwise a new UUID. Quote it when you contact support.',
    schema: { type: 'string' },
  },
};
const REPLAYED_HEADER = {
  'Idempotent-Replayed': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** Header parameters the gateway reads, referenced by the operations they apply to. */
const PARAMETERS = {
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description:
      'Your id for this call (1 to 128 of `A-Z a-z 0-9 . _ : -`): echoed in the response and written to our logs. Otherwise one is made.',
    schema: { type: 'string', maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
    example: 'order-sync-7f3a',
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: the same key with the same body from the same API key within 24 hours gets the first answer again (status and body, with `Idempotent-Replayed: true`) instead of running twice; a concurrent retry waits for the first. The same key with another body (or path) is 409 `conflict`. 1 to 255 printable ASCII characters; a UUID per operation is a good choice.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]{1,255}$' },
    example: '8e0c7a0e-3f4b-4f2e-9b1d-2f6f1c9e5a10',
  },
};

/** What each tag groups (the order of the reference). */
const TAGS = [
  { name: 'Account', description: 'The account and key making the call.' },
  { name: 'Customers', description: 'Customers (contacts) and their consents, keyed by your own `ref`.' },
  { name: 'Same-browser pass', description: 'Passes that let the chat widget know a signed-in customer.' },
  { name: 'Knowledge', description: 'The pieces of knowledge the assistant answers from.' },
  { name: 'Events', description: 'The event feed: every event of the account, in order, for 30 days.' },
  { name: 'Webhooks', description: 'Endpoints that receive events as signed POSTs, and the events they receive (see `webhooks`).' },
];

const RATE_HEADERS = {
  'RateLimit-Limit': { description: 'Writes allowed in the binding window.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Writes left in that window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until a slot frees.', schema: { type: 'integer' } },
};

/** Responses the gateway itself can give, added to every operation they apply to. */
const COMMON = {
  Unauthorized: errorResponse(
    'No key, or a wrong or revoked key.',
    'unauthorized',
    'Send a valid API key: Authorization: Bearer svc_cust_…',
  ),
  PlanRequired: errorResponse(
    'The account is not on the Scale plan.',
    'plan_required',
    'The API needs the scale plan; this account is on growth.',
  ),
  RateLimited: errorResponse(
    'More than 120 writes in a minute or 3,000 in an hour for this key.',
    'rate_limited',
    'Too many writes; retry in 12 s.',
    {
      'Retry-After': { description: 'Whole seconds after which a write is accepted.', schema: { type: 'integer', minimum: 1 } },
      ...RATE_HEADERS,
    },
  ),
  IdempotencyConflict: errorResponse(
    'The Idempotency-Key was used with another request (method, path or body), or its first request is still running after the wait.',
    'conflict',
    'This Idempotency-Key was already used with another request (method, path or body); use a new key for a new request.',
  ),
  InvalidJson: errorResponse('The body is not JSON, or its fields are invalid (`details` names each).', 'invalid_json', INVALID_JSON),
  PayloadTooLarge: errorResponse('The body is over 1 MiB.', 'payload_too_large', 'The request body is larger than 1 MiB.'),
  UnsupportedMediaType: errorResponse(
    'The body is not `application/json`.',
    'unsupported_media_type',
    'The request body must be JSON; send Content-Type: application/json.',
  ),
  Unavailable: errorResponse(
    'The service behind this route is briefly unavailable; retry.',
    'unavailable',
    'The service is temporarily unavailable; retry shortly.',
    {
      'Retry-After': { schema: { type: 'integer' } },
    },
  ),
};

function addCommonResponses(method: string, operation: Operation, proxied: boolean): void {
  const responses: Responses = operation.responses;
  const ref = (name: keyof typeof COMMON) => ({ $ref: `#/components/responses/${name}` });
  responses['401'] ??= ref('Unauthorized');
  responses['402'] ??= ref('PlanRequired');
  if (WRITES.has(method)) {
    responses['429'] ??= ref('RateLimited');
    for (const [status, response] of Object.entries(responses)) {
      if (response && status.startsWith('2') && !('$ref' in response)) response.headers = { ...RATE_HEADERS, ...(response.headers ?? {}) };
    }
  }
  if (operation.requestBody) {
    responses['400'] ??= ref('InvalidJson');
    responses['413'] ??= ref('PayloadTooLarge');
    responses['415'] ??= ref('UnsupportedMediaType');
  }
  if (proxied) responses['503'] ??= ref('Unavailable');
  const parameters = (operation.parameters ??= []);
  parameters.push({ $ref: '#/components/parameters/RequestId' });
  if (method === 'post') {
    parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
    responses['409'] ??= ref('IdempotencyConflict');
  }
  for (const [status, response] of Object.entries(responses)) {
    if (!response || '$ref' in response) continue;
    const replayable = method === 'post' && !status.startsWith('5');
    response.headers = { ...(response.headers ?? {}), ...REQUEST_ID_HEADER, ...(replayable ? REPLAYED_HEADER : {}) };
  }
}

type Schemas = Record<string, unknown>;

/**
 * An example value of a schema from the `example`s of its properties (following references and
 * arrays): the request examples stay what the DTOs say, with no second copy to keep in step.
 */
export function exampleOf(schema: unknown, schemas: Schemas, depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 8) return undefined;
  const node = schema as Record<string, unknown>;
  if ('example' in node) return node['example'];
  if (typeof node['$ref'] === 'string') return exampleOf(schemas[node['$ref'].replace('#/components/schemas/', '')], schemas, depth + 1);
  if (Array.isArray(node['oneOf'])) return exampleOf(node['oneOf'][0], schemas, depth + 1);
  if (node['type'] === 'array') {
    const item = exampleOf(node['items'], schemas, depth + 1);
    return item === undefined ? [] : [item];
  }
  if (typeof node['properties'] === 'object' && node['properties'] !== null) {
    const entries = Object.entries(node['properties'] as Record<string, unknown>)
      .map(([name, property]) => [name, exampleOf(property, schemas, depth + 1)] as const)
      .filter(([, value]) => value !== undefined);
    return Object.fromEntries(entries);
  }
  return undefined;
}

/** A request body without an example gets one made from its schema. */
function addRequestExample(operation: Operation, schemas: Schemas): void {
  const body = operation.requestBody;
  if (!body || '$ref' in body) return;
  for (const media of Object.values(body.content)) {
    if (media.example !== undefined || media.examples !== undefined) continue;
    const example = exampleOf(media.schema, schemas);
    if (example !== undefined) media.example = example;
  }
}

/**
 * OpenAPI 3.1 has no `nullable` (@nestjs/swagger still writes the 3.0 keyword): a nullable schema
 * becomes a type union with `null`, or `oneOf` with `{type: 'null'}` around a reference.
 */
export function toJsonSchemaNullability(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchemaNullability);
  if (typeof node !== 'object' || node === null) return node;
  const { nullable, ...rest } = node as Record<string, unknown>;
  const converted = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, toJsonSchemaNullability(value)]));
  if (nullable !== true) return converted;
  if (!('type' in converted)) return { oneOf: [converted, { type: 'null' }] };
  const types = Array.isArray(converted['type']) ? (converted['type'] as unknown[]) : [converted['type']];
  const values = Array.isArray(converted['enum']) ? { enum: [...(converted['enum'] as unknown[]), null] } : {};
  return { ...converted, ...values, type: [...types, 'null'] };
}

function fastifyPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

/**
 * One OpenAPI 3.1 document of the whole public API from the apps' own documents. Fails when two
 * apps describe the same operation or schema differently, or when the apps' routes and `API_ROUTES`
 * (which the gateway proxies) differ.
 */
export function assembleOpenApi(parts: ApiPart[]): OpenAPIObject {
  const paths: OpenAPIObject['paths'] = {};
  const schemas: Record<string, unknown> = {};
  const declared = new Set(API_ROUTE_LIST.map((r) => `${r.app} ${r.method} ${r.path}`));
  for (const { app, document } of parts) {
    for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
      if (name in schemas && JSON.stringify(schemas[name]) !== JSON.stringify(schema))
        throw new Error(`schema ${name} differs between apps`);
      schemas[name] = schema;
    }
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        if (paths[path]?.[method]) throw new Error(`${method.toUpperCase()} ${path} is described by two apps`);
        const route = `${method.toUpperCase()} ${fastifyPath(path)}`;
        if (!declared.delete(`${app} ${route}`)) throw new Error(`${app} documents ${route}, which API_ROUTES does not give it`);
        operation.security = [{ bearer: [] }];
        addCommonResponses(method, operation, app !== 'gateway');
        addRequestExample(operation, schemas);
        paths[path] = { ...(paths[path] ?? {}), [method]: operation };
      }
    }
  }
  const [missing] = declared;
  if (missing !== undefined) throw new Error(`API_ROUTES has ${missing}, which that app's controllers do not document`);
  // Events as the contract types them: a union discriminated by `event`, one payload schema per kind.
  Object.assign(schemas, eventSchemas());
  return toJsonSchemaNullability({
    openapi: '3.1.0',
    info: {
      title: 'Customer Chat Integration Service API',
      version: '1.0.0',
      description:
        'The REST API through which a business keeps customers, consents and knowledge in sync, gets same-browser passes, manages webhooks and reads the event feed. Every call needs `Authorization: Bearer svc_cust_…` and the Scale plan. Writes (POST, PUT, PATCH, DELETE) are limited to 120 per minute and 3,000 per hour per key. Errors are `{"error":{"code","message","details"?}}`.',
    },
    servers: [{ url: '/api/v1' }],
    security: [{ bearer: [] }],
    tags: TAGS,
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    webhooks: webhooksSection(),
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key: `svc_cust_` followed by 49 letters and digits (43 random, 6 of checksum); keys made before the checksum: 43 characters of base64url.',
        },
      },
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))) as never,
      responses: Object.fromEntries(
        Object.entries(COMMON).map(([name, response]) => [name, { ...response, headers: { ...response.headers, ...REQUEST_ID_HEADER } }]),
      ) as never,
      parameters: PARAMETERS as never,
    },
  }) as OpenAPIObject;
}
