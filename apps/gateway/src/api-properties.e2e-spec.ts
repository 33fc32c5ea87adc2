/**
 * Property-based fuzz test of everything a caller reaches: every operation of the OpenAPI document,
 * the chat's visitor API (`/chat/v1/*`) and every MCP tool (`POST /mcp`, `tools/call`). fast-check
 * generates valid and invalid input (wrong types, nulls, bounds, control characters, lone
 * surrogates, huge and deeply nested values, wrong content types, encoded paths, another account's
 * ids); the properties: never a 5xx, every 4xx in the contract's error shape, a refused request
 * changes no row and adds no event, and nothing of the other account is in any answer.
 *
 * PROPERTY_SEED (default fixed, printed in the suite's name) and PROPERTY_RUNS (runs per operation)
 * search longer: `PROPERTY_SEED=$RANDOM PROPERTY_RUNS=1000 npx jest apps/gateway/src/api-properties.e2e-spec.ts`.
 */
import { ERROR_STATUS, ErrorCode, IdentityPassResponseDto, WhoamiResponseDto } from '@svc/contracts';
import { MAX_JSON_DEPTH } from '@svc/platform';
import { queryRows } from '@svc/persistence';
import { ChatVisitor, dataSnapshot, Stack, startStack } from '@svc/testing';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import openapi from './openapi/openapi.json';

const SERVICES = ['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher', 'chat', 'mcp-server'];
const SEED = Number(process.env['PROPERTY_SEED'] ?? 20_260_521);
const RUNS = Number(process.env['PROPERTY_RUNS'] ?? 30);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const NUL = '\u0000';
/** Every schema a request may write: the API's and the chat's. */
const SCHEMAS = ['contacts', 'identity', 'knowledge', 'webhooks', 'chat'];
/** In the other account's data only: never in an answer to the first account. */
const MARKER = `mk${randomBytes(8).toString('hex')}`;
/** Values a field or path parameter of this name may take besides generated ones: real ids of both accounts (filled in beforeAll). */
const known: Record<string, unknown[]> = {};

interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  example?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
}

interface Parameter {
  in: 'path' | 'query';
  name: string;
  required?: boolean;
  schema: Schema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json': { schema: Schema } } };
}

/** A request to send, and whether it is invalid by construction (then it must be a 4xx). */
interface Call {
  method: string;
  /** From the gateway's root: `/api/v1/…`, `/chat/v1/…` or `/mcp`. */
  path: string;
  body?: string;
  /** Over the defaults (the first account's key or visitor token, JSON content type with a body). */
  headers?: Record<string, string>;
  mustRefuse: boolean;
  /** The one status the answer must have, when the call says (an oversize head's 431, body's 413). */
  status?: number;
}

const components = (openapi as unknown as { components: { schemas: Record<string, Schema> } }).components.schemas;
const resolve = (schema: Schema): Schema => (schema.$ref ? (components[schema.$ref.replace('#/components/schemas/', '')] ?? {}) : schema);

/** Any text, control characters and astral code points included. */
const anyText = (minLength = 0, maxLength = 20) => fc.string({ unit: 'binary', minLength, maxLength });
/** Text with a NUL somewhere. */
const withNul = fc.tuple(anyText(0, 8), anyText(0, 8)).map(([a, b]) => `${a}${NUL}${b}`);
/** Text with a lone surrogate (not Unicode: no UTF-8 holds it; JSON.stringify writes it as `\udxxx`). */
const withLoneSurrogate = fc
  .tuple(anyText(0, 8), fc.integer({ min: 0xd800, max: 0xdfff }), anyText(0, 8))
  .map(([a, unit, b]) => `${a}${String.fromCharCode(unit)}${b}`);
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** ISO 8601 timestamps: mostly well formed, with offsets PostgreSQL can and cannot hold, years at both ends. */
const randomTimestamp = fc
  .record({
    year: fc.oneof(fc.integer({ min: 1900, max: 2100 }), fc.constantFrom(1, 99, 100, 999, 1000, 9999)),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
    hour: fc.integer({ min: 0, max: 24 }),
    minute: fc.integer({ min: 0, max: 60 }),
    second: fc.integer({ min: 0, max: 60 }),
    fraction: fc.option(fc.stringMatching(/^[0-9]{1,7}$/), { nil: undefined }),
    zone: fc.oneof(
      fc.constant('Z'),
      fc
        .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 19 }), fc.integer({ min: 0, max: 61 }))
        .map(([sign, h, m]) => `${sign}${pad(h)}:${pad(m)}`),
      fc.constant(''),
    ),
  })
  .map(
    (t) =>
      `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}T${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}${t.fraction === undefined ? '' : `.${t.fraction}`}${t.zone}`,
  );
/** …and the instants at the ends of what a four-digit year holds, written with offsets that cross them. */
const timestamp = fc.oneof(
  { weight: 4, arbitrary: randomTimestamp },
  fc.constantFrom(
    '9999-12-31T23:59:59.999999Z',
    '9999-12-31T23:00:00-05:00',
    '9999-12-31T23:59:59-00:01',
    '1000-01-01T00:00:00+15:59',
    '0100-01-01T00:00:00+01:00',
  ),
);

/** Plain text within the length limits, for a body meant to pass every rule. */
const plainText = (minLength: number, maxLength: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9 ._-]{${minLength},${maxLength}}$`));

/**
 * A value the schema describes (formats and patterns included); strings kept short so that bodies
 * stay small. `plain`: only plain text and the documented examples, so that most such bodies pass
 * the rules a schema cannot state (a language tag, no control characters) and reach the database.
 */
function valid(raw: Schema, plain = false): fc.Arbitrary<unknown> {
  const schema = resolve(raw);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'object'];
  const options = types.map((type) => validOfType(schema, type, plain));
  return options.length === 1 ? (options[0] as fc.Arbitrary<unknown>) : fc.oneof(...options);
}

function validOfType(schema: Schema, type: string, plain: boolean): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 2 ** 40 });
    case 'string': {
      const minLength = schema.minLength ?? 0;
      const maxLength = Math.min(schema.maxLength ?? 40, minLength + 40);
      const example = typeof schema.example === 'string' ? schema.example : undefined;
      if (plain) {
        if (
          example !== undefined &&
          (schema.format !== undefined || schema.pattern !== undefined || /^[a-z]{2}(-[A-Z]{2})?$/.test(example))
        )
          return fc.constant(example);
        if (example?.startsWith('https://')) return fc.constant('https://127.0.0.1/hook');
        return plainText(minLength, maxLength);
      }
      const generated =
        schema.format === 'date-time'
          ? timestamp
          : schema.format === 'email'
            ? fc.emailAddress()
            : schema.format === 'uri' || example?.startsWith('https://')
              ? fc.oneof(fc.webUrl({ validSchemes: ['https', 'http'] }), fc.constant('https://127.0.0.1/hook'))
              : schema.pattern
                ? fc.stringMatching(new RegExp(schema.pattern))
                : anyText(minLength, maxLength);
      // The documented example too: most generated text fails a rule the schema cannot say (a language tag).
      return example !== undefined ? fc.oneof(fc.constant(example), generated) : generated;
    }
    case 'array': {
      const minLength = schema.minItems ?? 0;
      return fc.array(valid(schema.items ?? {}, plain), { minLength, maxLength: Math.min(schema.maxItems ?? 3, minLength + 3) });
    }
    default: {
      // A plain body leaves out svc_id: a random one names no chat-met customer (404).
      const named = Object.entries(schema.properties ?? {}).filter(([name]) => !(plain && name === 'svc_id'));
      const properties = Object.fromEntries(
        named.map(([name, property]) => {
          const ids = known[name];
          return [name, ids ? fc.oneof(fc.constantFrom(...ids), valid(property, plain)) : valid(property, plain)];
        }),
      );
      return fc.record(properties, { requiredKeys: (schema.required ?? []).filter((name) => name in properties) });
    }
  }
}

/** Some JSON value in a JSON text, nested `depth` levels deep (built as text: no recursion anywhere). */
const deepJson = fc
  .tuple(fc.integer({ min: MAX_JSON_DEPTH + 1, max: 5_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`);

/** Whether null is one of the schema's types. */
const nullable = (schema: Schema): boolean => {
  const type = resolve(schema).type;
  return Array.isArray(type) ? type.includes('null') : type === 'null';
};

/** A value just past one of the schema's bounds (too long, too short, too large, too many), if it has one. */
function beyond(raw: Schema): unknown {
  const schema = resolve(raw);
  if (schema.maxLength !== undefined) return 'x'.repeat(schema.maxLength + 1);
  if (schema.minLength !== undefined && schema.minLength > 0) return '';
  if (schema.maximum !== undefined) return schema.maximum + 1;
  if (schema.minimum !== undefined) return schema.minimum - 1;
  if (schema.maxItems !== undefined) return Array.from({ length: schema.maxItems + 1 }, () => 'x');
  return undefined;
}

/** An object body with one thing wrong: a NUL or lone surrogate, null, a bound, an unknown field, another JSON type. */
function mutated(schema: Schema, nullRefused = true): fc.Arbitrary<{ body: string; mustRefuse: boolean }> {
  const described = resolve(schema).properties ?? {};
  const properties = Object.keys(described);
  const base = valid(schema) as fc.Arbitrary<Record<string, unknown>>;
  const bounded = properties.filter((name) => beyond(described[name] as Schema) !== undefined);
  /** One string of the body, at any depth (a key or a value), with `escape` inserted. */
  const inAnyString = (escape: string) =>
    fc.tuple(base, fc.nat()).map(([body, pick]) => {
      const text = JSON.stringify(body);
      const strings = [...text.matchAll(/"(?:[^"\\]|\\.)*"/g)];
      const chosen = strings[pick % Math.max(strings.length, 1)];
      if (!chosen) return { body: text, mustRefuse: false };
      const at = chosen.index + 1;
      return { body: `${text.slice(0, at)}${escape}${text.slice(at)}`, mustRefuse: true };
    });
  const field = (value: fc.Arbitrary<unknown>, mustRefuse: (name: string) => boolean) =>
    fc
      .tuple(base, fc.constantFrom(...properties), value)
      .map(([body, name, v]) => ({ body: JSON.stringify({ ...body, [name]: v }), mustRefuse: mustRefuse(name) }));
  const unknownField = fc
    .tuple(
      base,
      fc.string({ minLength: 1, maxLength: 10 }).filter((name) => !properties.includes(name) && name !== '__proto__'),
      fc.jsonValue(),
    )
    .map(([body, name, value]) => ({ body: JSON.stringify({ ...body, [name]: value }), mustRefuse: true }));
  if (properties.length === 0) return fc.oneof(unknownField, inAnyString('\\u0000'));
  return fc.oneof(
    field(withNul, () => true),
    field(withLoneSurrogate, () => true),
    inAnyString('\\u0000'),
    inAnyString('\\udfff'),
    inAnyString('\\ud800x'),
    field(fc.constant(null), (name) => nullRefused && !nullable(described[name] as Schema)),
    ...(bounded.length > 0
      ? [
          fc.tuple(base, fc.constantFrom(...bounded)).map(([body, name]) => ({
            body: JSON.stringify({ ...body, [name]: beyond(described[name] as Schema) }),
            mustRefuse: true,
          })),
        ]
      : []),
    unknownField,
    field(fc.jsonValue({ maxDepth: 3 }), () => false),
    // A huge value: a long string or a long array.
    field(
      fc.oneof(
        fc.integer({ min: 10_000, max: 200_000 }).map((n) => 'é'.repeat(n)),
        fc.integer({ min: 1_000, max: 20_000 }).map((n) => Array.from({ length: n }, (_, i) => i)),
      ),
      () => false,
    ),
  );
}

/** A body: valid, with one thing wrong, not an object, too deep, or not JSON at all. */
/** `nullRefused`: a null for a field that is not nullable must be refused (MCP reads a null argument as an absent one). */
function bodyFor(schema: Schema, nullRefused = true): fc.Arbitrary<{ body: string; mustRefuse: boolean }> {
  return fc.oneof(
    { weight: 3, arbitrary: valid(schema, true).map((value) => ({ body: JSON.stringify(value), mustRefuse: false })) },
    { weight: 2, arbitrary: valid(schema).map((value) => ({ body: JSON.stringify(value), mustRefuse: false })) },
    { weight: 4, arbitrary: mutated(schema, nullRefused) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.constant(null), fc.integer(), fc.string(), fc.boolean(), fc.array(fc.jsonValue({ maxDepth: 2 })))
        .map((value) => ({ body: JSON.stringify(value), mustRefuse: true })),
    },
    { weight: 1, arbitrary: deepJson.map((body) => ({ body: `{"x":${body}}`, mustRefuse: true })) },
    // Not JSON (an empty body is no body, which every route with a body may take).
    {
      weight: 1,
      arbitrary: fc
        .string({ minLength: 1, maxLength: 30 })
        .filter((text) => !isJson(text))
        .map((body) => ({ body, mustRefuse: true })),
    },
  );
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Percent-encoded bytes that need not be UTF-8 (`%FF`, `%00`, `%C3`). */
const rawBytes = fc
  .uint8Array({ minLength: 1, maxLength: 12 })
  .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''));
/** Code points that `encodeURIComponent` takes (no lone surrogates). */
const encodable = (minLength: number, maxLength: number) => fc.string({ unit: 'grapheme', minLength, maxLength }).map(encodeURIComponent);

/** Encoded tricks in a path segment: dot segments, encoded slashes, double encoding, a NUL. */
const encodedTricks = fc.constantFrom('..', '%2e%2e', '.%2E', 'a%2Fb', '%2F', '%252F', 'a%5Cb', '%00', 'a%3Fb%23c', '%E2%80%AE');

/** A path parameter as sent: valid for its schema, known ids of both accounts (so updates hit), or anything. */
function pathValue(name: string, schema: Schema): fc.Arbitrary<string> {
  const ids = (known[name] ?? []).map(String);
  if (schema.type === 'integer') {
    return fc.oneof(
      ...(ids.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...ids) }] : []),
      fc.integer({ min: 1, max: 2 ** 31 }).map(String),
      fc.constantFrom('0', '-1', '1.5', '99999999999999999999', 'abc', '1e3'),
      rawBytes,
      encodedTricks,
    );
  }
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('c-1', 'c-2', 'faq-1', ...ids) },
    encodedTricks,
    { weight: 2, arbitrary: plainText(1, 40).map(encodeURIComponent) },
    encodable(1, 40),
    encodable(250, 260),
    fc
      .tuple(encodable(0, 5), fc.integer({ min: 0, max: 0x1f }), encodable(0, 5))
      .map(([a, control, b]) => `${a}%${control.toString(16).padStart(2, '0')}${b}`),
    rawBytes,
  ) as fc.Arbitrary<string>;
}

/** A query string: each declared parameter absent, valid or anything, sometimes repeated, sometimes an unknown one or a NUL. */
function queryFor(parameters: Parameter[]): fc.Arbitrary<string> {
  const one = (parameter: Parameter): fc.Arbitrary<string[]> =>
    fc.oneof(
      { weight: 1, arbitrary: fc.constant<string[]>([]) },
      fc.oneof(
        { weight: 3, arbitrary: valid(parameter.schema, true).map((value) => [`${parameter.name}=${encodeURIComponent(String(value))}`]) },
        valid(parameter.schema).map((value) => [`${parameter.name}=${encodeURIComponent(String(value))}`]),
        encodable(0, 20).map((value) => [`${parameter.name}=${value}`]),
        withNul.map((value) => [`${parameter.name}=${encodeURIComponent(value)}`]),
        fc
          .tuple(valid(parameter.schema), valid(parameter.schema))
          .map(([a, b]) => [`${parameter.name}=${encodeURIComponent(String(a))}`, `${parameter.name}=${encodeURIComponent(String(b))}`]),
      ),
    );
  return fc
    .tuple(
      fc.tuple(...parameters.map(one)),
      fc.oneof(
        { weight: 5, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.tuple(encodable(1, 8), encodable(0, 8)).map(([name, value]) => `${name}=${value}`) },
      ),
    )
    .map(([values, unknown]) => {
      const parts = values.flat();
      if (unknown !== undefined) parts.push(unknown);
      return parts.length > 0 ? `?${parts.join('&')}` : '';
    });
}

/** Every call of one operation, `prefix` before its path (`/api/v1`, `/chat/v1`). */
function callsFor(method: string, template: string, operation: Operation, prefix = '/api/v1'): fc.Arbitrary<Call> {
  const parameters = operation.parameters ?? [];
  const pathParameters = parameters.filter((p) => p.in === 'path');
  const queryParameters = parameters.filter((p) => p.in === 'query');
  const schema = operation.requestBody?.content['application/json'].schema;
  const noBody = fc.constant<{ body: string | undefined; mustRefuse: boolean }>({ body: undefined, mustRefuse: false });
  const calls = fc
    .tuple(
      fc.tuple(...pathParameters.map((p) => pathValue(p.name, p.schema))),
      queryParameters.length > 0 ? queryFor(queryParameters) : fc.constant(''),
      schema ? bodyFor(schema) : noBody,
    )
    .map(([values, query, { body, mustRefuse }]) => {
      let path = template;
      pathParameters.forEach((parameter, index) => (path = path.replace(`{${parameter.name}}`, values[index] as string)));
      return { method, path: `${prefix}${path}${query}`, body, mustRefuse };
    });
  return withContentType(calls);
}

/** Content types a JSON route must refuse (415). */
const NOT_JSON = ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x'];

/** One body in eight sent with another content type than JSON: then it must be refused. */
function withContentType(calls: fc.Arbitrary<Call>): fc.Arbitrary<Call> {
  return fc
    .tuple(calls, fc.option(fc.constantFrom(...NOT_JSON), { freq: 7, nil: undefined }))
    .map(([call, type]) =>
      call.body === undefined || call.body === '' || type === undefined
        ? call
        : { ...call, headers: { ...call.headers, 'content-type': type }, mustRefuse: true },
    );
}

/** A path no route has, or a route's path with a method it lacks, on each surface. */
const strayCalls: fc.Arbitrary<Call> = fc
  .tuple(
    fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND'),
    fc.constantFrom('/api/v1', '/chat/v1', '/mcp'),
    fc.array(
      fc.oneof(
        encodable(1, 12),
        rawBytes,
        encodedTricks,
        fc.constantFrom('contacts', 'knowledge', 'webhooks', 'events', 'identity', 'bulk', 'sessions', 'stream', 'mcp', 'internal'),
      ),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .map(([method, prefix, segments]) => ({
    method,
    path: `${prefix}/${segments.join('/')}`,
    body: WRITES.has(method) ? '{}' : undefined,
    mustRefuse: false,
  }));

const text = (minLength: number, maxLength: number, example?: string): Schema => ({ type: 'string', minLength, maxLength, example });
const object = (properties: Record<string, Schema>, required: string[] = []): Schema => ({ type: 'object', properties, required });
const shownConsent = { consent_text: text(1, 10_000, 'I agree.'), lang: text(2, 35, 'en') };

/** The visitor API (docs/chat.md, "The visitor API"), described like the OpenAPI document describes the REST API. */
const VISITOR_OPERATIONS: Array<{ method: string; template: string; operation: Operation }> = (
  [
    ['POST', '/sessions', object({ widget: text(36, 36), identity: text(0, 4096), token: text(0, 64) }, ['widget'])],
    ['GET', '/conversation'],
    ['POST', '/messages', object({ text: text(1, 4000, 'When do you ship?') }, ['text'])],
    ['POST', '/handover'],
    [
      'POST',
      '/handover/reach',
      object(
        {
          channel: { type: 'string', enum: ['email', 'whatsapp'] },
          email: { type: 'string', format: 'email', maxLength: 254, example: 'ada@example.com' },
          phone: { type: 'string', pattern: '^\\+[1-9][0-9]{1,14}$', example: '+447700900123' },
          consent: { type: 'boolean' },
          ...shownConsent,
        },
        ['channel', 'consent', 'consent_text'],
      ),
    ],
    [
      'POST',
      '/bookings',
      object({ starts_at: { type: 'string', format: 'date-time', maxLength: 64, example: '2030-01-07T10:00:00Z' }, note: text(0, 500) }, [
        'starts_at',
      ]),
    ],
    ['POST', '/consents', object({ purpose: { type: 'string', enum: ['future_email', 'future_whatsapp'] }, ...shownConsent }, ['purpose'])],
    ['POST', '/phone-code'],
    ['GET', '/stream', undefined, [{ in: 'query', name: 'after', schema: { type: 'integer', minimum: 0, maximum: 999_999_999 } }]],
    ['GET', '/texts', undefined, [{ in: 'query', name: 'lang', schema: text(2, 35, 'de') }]],
  ] as Array<[string, string, Schema?, Parameter[]?]>
).map(([method, template, body, parameters]) => ({
  method,
  template,
  operation: { parameters, requestBody: body ? { content: { 'application/json': { schema: body } } } : undefined },
}));

function expectErrorShape(status: number, body: unknown): void {
  expect(body).toEqual({ error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }) });
  const error = (body as { error: Record<string, unknown> }).error;
  expect(Object.keys(error).every((key) => ['code', 'message', 'details'].includes(key))).toBe(true);
  expect(ERROR_STATUS[error['code'] as ErrorCode]).toBe(status);
  if (error['details'] !== undefined) {
    expect(error['details']).toEqual(expect.arrayContaining([]));
    for (const detail of error['details'] as unknown[]) expect(detail).toEqual({ path: expect.any(String), message: expect.any(String) });
  }
}

/** A JSON-RPC answer of `POST /mcp` (a single request's). */
interface RpcAnswer {
  result?: { isError?: boolean; structuredContent?: unknown };
  error?: { code: number; message: string };
}

/** A `tools/call` request as sent, `args` the arguments' JSON text (which may be anything). */
const toolCall = (name: string, args: string): string =>
  `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${args}}}`;
const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };

/** Envelopes the MCP transport must refuse: no JSON-RPC, a batch too large, a wrong version, an unknown method or tool. */
const mcpEnvelopes: fc.Arbitrary<Call> = fc
  .oneof<fc.Arbitrary<{ body: string; headers?: Record<string, string> }>[]>(
    fc.constantFrom<{ body: string; headers?: Record<string, string> }>(
      { body: toolCall('whoami', '{}'), headers: { accept: 'application/json' } },
      { body: toolCall('whoami', '{}'), headers: { 'mcp-protocol-version': '1999-01-01' } },
      { body: toolCall('no_such_tool', '{}') },
      { body: '{"jsonrpc":"1.0","id":1,"method":"tools/list"}' },
      { body: '{"jsonrpc":"2.0","id":1,"method":"no/such/method"}' },
      // Names of Object.prototype's properties: unknown methods and tools, never keys.
      ...['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'].flatMap((name) => [
        { body: `{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(name)},"params":{}}` },
        { body: toolCall(name, '{}') },
      ]),
      { body: `[${Array.from({ length: 200 }, () => toolCall('whoami', '{}')).join(',')}]` },
      { body: '[]' },
      { body: '' },
    ),
    fc.string({ unit: 'binary', maxLength: 40 }).map((body) => ({ body })),
    fc.jsonValue({ maxDepth: 3 }).map((value) => ({ body: JSON.stringify(value) })),
  )
  .map(({ body, headers }) => ({
    method: 'POST',
    path: '/mcp',
    body,
    headers: { ...MCP_HEADERS, ...headers },
    mustRefuse: true,
  }));

describe(`property-based fuzz of the REST API, the visitor API and MCP (fast-check, seed ${SEED}, ${RUNS} runs; whole stack)`, () => {
  let stack: Stack;
  let visitorToken: string;
  let lastAcceptedWrite = 0;
  let sentinels = 0;
  const tools: Array<{ name: string; inputSchema: Schema; annotations?: { readOnlyHint?: boolean } }> = [];
  const operations = Object.entries((openapi as unknown as { paths: Record<string, Record<string, Operation>> }).paths).flatMap(
    ([template, methods]) => Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), template, operation })),
  );

  const json = async <T>(response: Response): Promise<T> => {
    if (!response.ok) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    stack = await startStack(SERVICES, {
      env: { OUTBOX_POLL_INTERVAL_MS: '200' },
      appEnv: {
        // The limits are tested on their own; here every generated write must reach its service.
        gateway: { WRITE_LIMIT_PER_MINUTE: '1000000', WRITE_LIMIT_PER_HOUR: '1000000' },
        chat: { VISITOR_MESSAGES_PER_MINUTE: '1000000', HANDOVER_WAIT: '1h' },
        'webhook-dispatcher': { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CONCURRENCY: '0' },
      },
      startTimeoutMs: 60_000,
    });
    const { account, other } = stack;
    const as = (key: string, path: string, body?: unknown, method = body === undefined ? 'POST' : 'PUT') =>
      stack.call(path, { method, key, json: body });
    // The other account: its markers in every kind of data the first account could be shown.
    const otherContact = await json<{ svc_id: number }>(
      await as(other.key, '/contacts/other-c-1', { name: `Zed ${MARKER}`, email: `${MARKER}@example.com` }),
    );
    await json(
      await as(other.key, '/knowledge/other-faq-1', {
        heading: `Zanzibar quokka ${MARKER}`,
        text: `Zanzibar quokka shipping ${MARKER} takes a week.`,
      }),
    );
    const otherHook = await json<{ id: number }>(await as(other.key, '/webhooks', { url: `https://127.0.0.1/${MARKER}` }, 'POST'));
    const otherPass = (await json<IdentityPassResponseDto>(await as(other.key, '/contacts/other-c-1/identity'))).token;
    const otherWidget = (await json<WhoamiResponseDto>(await stack.call('/whoami', { key: other.key }))).widget;
    const otherVisitor = new ChatVisitor(stack.gateway.url);
    const otherSession = await otherVisitor.session({ widget: otherWidget, identity: otherPass });
    await otherVisitor.send(`Hello ${MARKER}`);
    // The first account: a customer, a piece, webhooks and an identified conversation, so that generated calls hit real rows.
    const contact = await json<{ svc_id: number }>(await as(account.key, '/contacts/c-1', { name: 'Ada', email: 'ada@example.com' }));
    await json(await as(account.key, '/knowledge/faq-1', { heading: 'Shipping', text: 'Orders ship within two working days.' }));
    const hooks = await Promise.all(
      [1, 2, 3].map(async (n) => json<{ id: number }>(await as(account.key, '/webhooks', { url: `https://127.0.0.1/hook-${n}` }, 'POST'))),
    );
    const pass = (await json<IdentityPassResponseDto>(await as(account.key, '/contacts/c-1/identity'))).token;
    const widget = (await json<WhoamiResponseDto>(await stack.call('/whoami'))).widget;
    const visitor = new ChatVisitor(stack.gateway.url);
    const session = await visitor.session({ widget, identity: pass });
    visitorToken = visitor.token;
    const texts = await json<Record<string, string>>(await fetch(`${stack.gateway.url}/chat/v1/texts?lang=en`));
    Object.assign(known, {
      ref: ['c-1', 'other-c-1'],
      externalRef: ['faq-1', 'other-faq-1'],
      external_ref: ['faq-1', 'other-faq-1'],
      id: [...hooks.map((hook) => hook.id), otherHook.id],
      svc_id: [contact.svc_id, otherContact.svc_id],
      conversation_id: [session.body.conversation.id, otherSession.body.conversation.id],
      widget: [widget, otherWidget],
      token: [visitorToken],
      identity: [pass],
      consent_text: Object.entries(texts)
        .filter(([name]) => name.endsWith('_consent'))
        .map(([, words]) => words),
      question: ['zanzibar quokka shipping', 'When do you ship?'],
    });
    // The other account's token and pass in the first account's sessions: never its conversation or customer.
    known['crossSessions'] = [
      { widget, token: otherVisitor.token },
      { widget, identity: otherPass },
      { widget, token: visitorToken, identity: otherPass },
    ];
    const listed = await mcp<{ tools: typeof tools }>('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    tools.push(...listed.tools);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  async function mcp<T>(body: string): Promise<T> {
    const response = await send({ method: 'POST', path: '/mcp', body, headers: MCP_HEADERS, mustRefuse: false });
    return (JSON.parse(response.text) as { result: T }).result;
  }

  /** Sends a call with the first account's credentials (unless the call says otherwise); an event stream is closed at its head. */
  async function send(call: Call): Promise<{ status: number; text: string }> {
    const controller = new AbortController();
    const credential = call.path.startsWith('/chat/') ? visitorToken : stack.account.key;
    const headers = {
      authorization: `Bearer ${credential}`,
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...call.headers,
    };
    if (call.body !== undefined && call.body.length > 2 ** 20) return sendLarge(call, headers);
    const response = await fetch(`${stack.gateway.url}${call.path}`, {
      method: call.method,
      headers,
      body: call.body,
      signal: controller.signal,
    });
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
      controller.abort();
      return { status: response.status, text: '' };
    }
    return { status: response.status, text: await response.text() };
  }

  /**
   * A body over the limit, with node:http, which (unlike fetch) reads an answer that comes before the
   * body is all sent. The gateway reads a refused body to its end before it answers, so the answer
   * must arrive whole: a connection closed or reset without it fails the call.
   */
  function sendLarge(call: Call, headers: Record<string, string>): Promise<{ status: number; text: string }> {
    const unanswered = (why: string) => new Error(`${call.method} ${call.path} with a body of ${call.body?.length} bytes: ${why}`);
    return new Promise((resolve, reject) => {
      let answered = false;
      const request = httpRequest(`${stack.gateway.url}${call.path}`, { method: call.method, headers }, (response) => {
        answered = true;
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', (err) => reject(unanswered(`the answer was cut (${err.message})`)));
        response.on('close', () => {
          if (!response.complete) reject(unanswered('the answer was cut'));
        });
      });
      // Reported by 'close' below when no answer came; after an answer, the answer counts.
      request.on('error', () => undefined);
      request.on('close', () => {
        if (!answered) reject(unanswered('the connection closed without an answer'));
      });
      request.end(call.body);
    });
  }

  /**
   * Whether an accepted write still has consequences on their way: customer messages the assistant
   * has to answer, or events not yet relayed (an erasure's `contact.erased` blanks the chat's records).
   */
  async function answersPending(): Promise<boolean> {
    const [row] = await queryRows<{ pending: boolean }>(
      stack.dataSource,
      `SELECT EXISTS (SELECT 1 FROM chat.messages WHERE reply_pending)
           OR EXISTS (SELECT 1 FROM contacts.outbox WHERE sent_at IS NULL)
           OR EXISTS (SELECT 1 FROM chat.outbox WHERE sent_at IS NULL) AS pending`,
    );
    return row?.pending ?? false;
  }

  /** A snapshot of every schema, taken once what an accepted write set going (an assistant's answer) has settled. */
  async function settledSnapshot(): Promise<Record<string, string>> {
    let snapshot = await dataSnapshot(stack.dataSource, SCHEMAS);
    if (Date.now() - lastAcceptedWrite > 1_000 && !(await answersPending())) return snapshot;
    for (;;) {
      await sleep(150);
      const next = await dataSnapshot(stack.dataSource, SCHEMAS);
      if (JSON.stringify(next) === JSON.stringify(snapshot) && !(await answersPending())) return next;
      snapshot = next;
    }
  }

  /** Whether the answer refuses the call; throws when a refusal is not in its shape (REST's, or JSON-RPC's on /mcp). */
  function refused(call: Call, status: number, text: string): boolean {
    if (status < 400 && !(call.path === '/mcp' && status === 200)) return false;
    const body = JSON.parse(text) as unknown;
    if (status >= 400) {
      const rpc = body as { jsonrpc?: string; error?: { code?: unknown; message?: unknown } };
      if (call.path === '/mcp' && rpc.jsonrpc === '2.0')
        expect(rpc.error).toEqual({ code: expect.any(Number), message: expect.any(String) });
      else expectErrorShape(status, body);
      return true;
    }
    const answer = (Array.isArray(body) ? body[0] : body) as RpcAnswer;
    if (answer.error) {
      if (answer.error.code === -32603) throw new Error('JSON-RPC internal error');
      return true;
    }
    if (!answer.result?.isError) return false;
    const error = (answer.result.structuredContent as { error: { code: ErrorCode } }).error;
    expectErrorShape(ERROR_STATUS[error.code], answer.result.structuredContent);
    if (ERROR_STATUS[error.code] >= 500) throw new Error(`a tool's server error: ${error.code}`);
    return true;
  }

  /** Sends one call and checks the properties; throws on a violation. */
  async function check(call: Call): Promise<void> {
    const write = WRITES.has(call.method);
    const before = write ? await settledSnapshot() : undefined;
    const { status, text } = await send(call);
    const what = `${call.method} ${call.path.slice(0, 300)} ${JSON.stringify(call.headers ?? {}).slice(0, 200)} ${call.body?.slice(0, 300) ?? ''} → ${status} ${text.slice(0, 300)}`;
    if (status >= 500) throw new Error(`server error: ${what}`);
    if (call.status !== undefined && status !== call.status) throw new Error(`not ${call.status}: ${what}`);
    if (text.toLowerCase().includes(MARKER) || text.includes(stack.other.accountId))
      throw new Error(`the other account's data in an answer: ${what}`);
    let isRefused: boolean;
    try {
      isRefused = refused(call, status, text);
    } catch (err) {
      throw new Error(`not the error shape: ${what}\n${(err as Error).message}`);
    }
    if (call.mustRefuse && !isRefused) throw new Error(`accepted an invalid request: ${what}`);
    if (before && isRefused) {
      const after = await dataSnapshot(stack.dataSource, SCHEMAS);
      const changed = Object.keys(after).filter((table) => after[table] !== before[table]);
      if (changed.length > 0) throw new Error(`a refused request changed ${changed.join(', ')}: ${what}`);
    }
    if (write && !isRefused) lastAcceptedWrite = Date.now();
  }

  async function run(arbitrary: fc.Arbitrary<Call>, numRuns = RUNS): Promise<void> {
    try {
      await fc.assert(
        fc.asyncProperty(arbitrary, (call) => check(call)),
        { seed: SEED, numRuns },
      );
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      throw new Error(
        `PROPERTY_SEED=${SEED} PROPERTY_RUNS=${RUNS} reproduces this.\n${cause instanceof Error ? cause.message : String(cause)}\n${(err as Error).message}`,
      );
    }
  }

  const visitorCalls = (method: string, template: string, operation: Operation): fc.Arbitrary<Call> => {
    const calls = callsFor(method, template, operation, '/chat/v1');
    const sessions = template === '/sessions' ? [fc.constantFrom(...(known['crossSessions'] as unknown[]))] : [];
    return fc
      .tuple(
        sessions.length > 0
          ? fc.oneof(
              { weight: 4, arbitrary: calls },
              sessions[0]!.map((body): Call => ({ method, path: '/chat/v1/sessions', body: JSON.stringify(body), mustRefuse: false })),
            )
          : calls,
        // Mostly the first account's visitor token; sometimes none, a wrong one, or the key instead.
        fc.option(fc.constantFrom('', 'Bearer vis_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'Bearer x', 'Basic eDp5'), {
          freq: 6,
          nil: undefined,
        }),
      )
      .map(([call, authorization]) =>
        authorization === undefined
          ? call
          : {
              ...call,
              headers: { ...call.headers, authorization },
              mustRefuse: call.mustRefuse || (template !== '/sessions' && template !== '/texts'),
            },
      );
  };

  const mcpCalls = (tool: { name: string; inputSchema: Schema }): fc.Arbitrary<Call> =>
    bodyFor(tool.inputSchema, false).map(({ body, mustRefuse }) => ({
      method: 'POST',
      path: '/mcp',
      body: toolCall(tool.name, body ?? '{}'),
      headers: MCP_HEADERS,
      mustRefuse,
    }));

  it('reads the document, the visitor API and the tools: every operation is there', () => {
    expect(operations.map((o) => `${o.method} ${o.template}`)).toEqual(
      expect.arrayContaining([
        'PUT /contacts/{ref}',
        'POST /knowledge/bulk',
        'POST /webhooks',
        'PATCH /webhooks/{id}',
        'GET /events',
        'GET /whoami',
      ]),
    );
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['upsert_contact', 'send_reply', 'search_knowledge', 'create_booking']),
    );
  });

  it.each(operations.map((o) => [`${o.method} ${o.template}`, o] as const))(
    'REST %s: never a 5xx, 4xx in the error shape, a refused write writes nothing, nothing of another account',
    async (_, { method, template, operation }) => {
      await run(callsFor(method, template, operation));
    },
  );

  it.each(VISITOR_OPERATIONS.map((o) => [`${o.method} /chat/v1${o.template}`, o] as const))(
    'visitor %s: never a 5xx, 4xx in the error shape, a refused write writes nothing, nothing of another account',
    async (_, { method, template, operation }) => {
      await run(visitorCalls(method, template, operation));
    },
  );

  it('MCP tools/call of every tool: never a 5xx or internal error, every failure in the error shape, a refused call writes nothing', async () => {
    for (const tool of tools) await run(mcpCalls(tool), Math.ceil(RUNS / 3));
    await run(mcpEnvelopes);
  }, 300_000);

  it('paths no route has, methods a path lacks, on every surface: 4xx in the error shape', async () => {
    await run(strayCalls);
  });

  it('an oversize request head (431) or body (413), on every surface: in the error shape', async () => {
    const surfaces = ['/api/v1/whoami', '/api/v1/contacts/c-1', '/chat/v1/messages', '/mcp', '/nowhere'];
    const heads = fc
      .tuple(fc.constantFrom(...surfaces), fc.integer({ min: 17_000, max: 200_000 }), fc.boolean())
      .map(([path, size, inUrl]) =>
        inUrl
          ? { method: 'GET', path: `${path}?q=${'a'.repeat(size)}`, mustRefuse: true, status: 431 }
          : { method: 'GET', path, headers: { 'x-filler': 'a'.repeat(size) }, mustRefuse: true, status: 431 },
      );
    const bodies = fc
      .tuple(
        fc.constantFrom('/api/v1/contacts/c-big', '/api/v1/knowledge/bulk', '/chat/v1/messages', '/mcp'),
        fc.integer({ min: 2 ** 20 + 1, max: 2 ** 22 }),
      )
      .map(([path, size]) => ({
        method: path.includes('/contacts/') ? 'PUT' : 'POST',
        path,
        body: `{"name":"${'a'.repeat(size)}"}`,
        headers: path === '/mcp' ? MCP_HEADERS : {},
        mustRefuse: true,
        status: 413,
      }));
    await run(fc.oneof(heads, bodies), 12);
  });

  /** Every event of an account's feed. */
  async function feed(key: string): Promise<unknown[]> {
    const events: unknown[] = [];
    for (let after = 0; ;) {
      const page = await json<{ events: unknown[]; next_after: number; more: boolean }>(
        await stack.call(`/events?after=${after}&limit=200`, { key }),
      );
      events.push(...page.events);
      after = page.next_after;
      if (!page.more) return events;
    }
  }

  /** Waits until what was accepted so far is in the feed: a visitor message of its own, then the relays' next polls. */
  async function settleFeed(): Promise<string> {
    const marker = `sentinel-${(sentinels += 1)}`;
    const sent = await send({ method: 'POST', path: '/chat/v1/messages', body: JSON.stringify({ text: marker }), mustRefuse: false });
    if (sent.status !== 201) throw new Error(`sentinel: ${sent.status} ${sent.text}`);
    const deadline = Date.now() + 20_000;
    while (!JSON.stringify(await feed(stack.account.key)).includes(`"${marker}"`)) {
      if (Date.now() > deadline) throw new Error(`${marker} never reached the feed`);
      await sleep(100);
    }
    await sleep(1_500);
    return marker;
  }

  it('refused writes on every surface add no event to either account’s feed', async () => {
    const write = (o: { method: string }) => WRITES.has(o.method);
    const refusedCalls = fc
      .oneof(
        ...operations.filter(write).map((o) => callsFor(o.method, o.template, o.operation)),
        ...VISITOR_OPERATIONS.filter(write).map((o) => visitorCalls(o.method, o.template, o.operation)),
        ...tools.filter((tool) => !tool.annotations?.readOnlyHint).map(mcpCalls),
      )
      .filter((call) => call.mustRefuse);
    await settleFeed();
    const before = { first: await feed(stack.account.key), other: await feed(stack.other.key) };
    for (const call of fc.sample(refusedCalls, { seed: SEED, numRuns: RUNS * 3 })) await check(call);
    const sentinel = await settleFeed();
    const added = (await feed(stack.account.key)).slice(before.first.length);
    expect(added.filter((event) => !JSON.stringify(event).includes(`"${sentinel}"`))).toEqual([]);
    expect(await feed(stack.other.key)).toEqual(before.other);
  }, 300_000);
});
