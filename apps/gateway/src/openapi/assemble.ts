import type { OpenAPIObject } from '@nestjs/swagger';
import { ROUTES, Upstream } from '../proxy/route-table';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;
type Responses = Operation['responses'];

export interface ApiPart {
  /** `gateway` or the upstream that serves these routes. */
  app: 'gateway' | Upstream;
  document: OpenAPIObject;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const WRITES = new Set(['put', 'post', 'delete', 'patch']);
const ERROR = { $ref: '#/components/schemas/ErrorResponseDto' };

function errorResponse(description: string, code: string, message: string, headers?: Record<string, unknown>) {
  return { description, ...(headers ? { headers } : {}), content: { 'application/json': { schema: ERROR, example: { error: { code, message } } } } };
}

const RATE_HEADERS = {
  'RateLimit-Limit': { description: 'Writes allowed in the binding window.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Writes left in that window.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until a slot frees.', schema: { type: 'integer' } },
};

/** Responses the gateway itself can give, added to every operation they apply to. */
const COMMON = {
  Unauthorized: errorResponse('No key, or a wrong or revoked key.', 'unauthorized', 'Send a valid API key: Authorization: Bearer svc_cust_…'),
  PlanRequired: errorResponse('The account is not on the Scale plan.', 'plan_required', 'The API needs the scale plan; this account is on growth.'),
  RateLimited: errorResponse('More than 120 writes in a minute or 3,000 in an hour for this key.', 'rate_limited', 'Too many writes; retry in 12 s.', {
    'Retry-After': { description: 'Whole seconds after which a write is accepted.', schema: { type: 'integer', minimum: 1 } },
    ...RATE_HEADERS,
  }),
  InvalidJson: errorResponse('The body is not JSON, or its fields are invalid (`details` names each).', 'invalid_json', 'The request body is not valid JSON.'),
  PayloadTooLarge: errorResponse('The body is over 1 MiB.', 'payload_too_large', 'The request body is larger than 1 MiB.'),
  UnsupportedMediaType: errorResponse('The body is not `application/json`.', 'unsupported_media_type', 'The request body must be JSON; send Content-Type: application/json.'),
  Unavailable: errorResponse('The service behind this route is briefly unavailable; retry.', 'unavailable', 'The service is temporarily unavailable; retry shortly.', {
    'Retry-After': { schema: { type: 'integer' } },
  }),
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
 * apps describe the same operation or schema differently, or when a service documents a route the
 * gateway does not send to it.
 */
export function assembleOpenApi(parts: ApiPart[]): OpenAPIObject {
  const paths: OpenAPIObject['paths'] = {};
  const schemas: Record<string, unknown> = {};
  for (const { app, document } of parts) {
    for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
      if (name in schemas && JSON.stringify(schemas[name]) !== JSON.stringify(schema)) throw new Error(`schema ${name} differs between apps`);
      schemas[name] = schema;
    }
    for (const [path, item] of Object.entries(document.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (!operation) continue;
        if (paths[path]?.[method]) throw new Error(`${method.toUpperCase()} ${path} is described by two apps`);
        if (app !== 'gateway') {
          const routed = ROUTES.some((r) => r.method === method.toUpperCase() && r.path === fastifyPath(path) && r.upstream === app);
          if (!routed) throw new Error(`${app} documents ${method.toUpperCase()} ${path}, which the gateway does not route to it`);
        }
        operation.security = [{ bearer: [] }];
        addCommonResponses(method, operation, app !== 'gateway');
        paths[path] = { ...(paths[path] ?? {}), [method]: operation };
      }
    }
  }
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
    tags: [],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `svc_cust_` followed by 43 characters.' } },
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))) as never,
      responses: COMMON as never,
    },
  }) as OpenAPIObject;
}
