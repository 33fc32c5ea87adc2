/**
 * Property-based test of the whole public API, driven by the OpenAPI document: for every route,
 * fast-check generates valid and invalid bodies, path parameters and query strings (and paths no
 * route has), sends them through the gateway to every service, and checks that the answer is never
 * a 5xx, that every 4xx has the contract's error shape, and that a refused write changed nothing.
 *
 * PROPERTY_SEED fixes the seed (a failure prints the one it used); PROPERTY_RUNS sets the runs per
 * route (default 25: the suite takes well under a minute on two cores).
 */
import { ERROR_STATUS, ErrorCode } from '@svc/contracts';
import { MAX_JSON_DEPTH } from '@svc/platform';
import { dataSnapshot, freePort, Stack, startStack } from '@svc/testing';
import fc from 'fast-check';
import openapi from './openapi/openapi.json';

const SERVICES = ['contacts-api', 'identity-issuer', 'knowledge-api', 'events-api', 'webhook-dispatcher'];
const SEED = Number(process.env['PROPERTY_SEED'] ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env['PROPERTY_RUNS'] ?? 25);
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const NUL = '\u0000';

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
  path: string;
  body?: string;
  mustRefuse: boolean;
}

const components = (openapi as unknown as { components: { schemas: Record<string, Schema> } }).components.schemas;
const resolve = (schema: Schema): Schema =>
  schema.$ref ? (components[schema.$ref.replace('#/components/schemas/', '')] as Schema) : schema;

/** Any text, control characters and astral code points included. */
const anyText = (minLength = 0, maxLength = 20) => fc.string({ unit: 'binary', minLength, maxLength });
/** Text with a NUL somewhere. */
const withNul = fc.tuple(anyText(0, 8), anyText(0, 8)).map(([a, b]) => `${a}${NUL}${b}`);
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
      // A plain body leaves out svc_id: a random one names no chat-met customer (404), and no test here makes one.
      const named = Object.entries(schema.properties ?? {}).filter(([name]) => !(plain && name === 'svc_id'));
      const properties = Object.fromEntries(named.map(([name, property]) => [name, valid(property, plain)]));
      return fc.record(properties, { requiredKeys: schema.required ?? [] });
    }
  }
}

/** Some JSON value in a JSON text, nested `depth` levels deep (built as text: no recursion anywhere). */
const deepJson = fc
  .tuple(fc.integer({ min: MAX_JSON_DEPTH + 1, max: 5_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`);

/** An object body with one thing wrong: a NUL in a string, an unknown field, or a field of another JSON type. */
function mutated(schema: Schema): fc.Arbitrary<{ body: string; mustRefuse: boolean }> {
  const properties = Object.keys(resolve(schema).properties ?? {});
  const base = valid(schema) as fc.Arbitrary<Record<string, unknown>>;
  return fc.oneof(
    fc
      .tuple(base, fc.constantFrom(...properties), withNul)
      .map(([body, field, text]) => ({ body: JSON.stringify({ ...body, [field]: text }), mustRefuse: true })),
    fc.tuple(base, fc.nat()).map(([body, pick]) => {
      // A NUL in one string of the body, at any depth (a key or a value).
      const text = JSON.stringify(body);
      const strings = [...text.matchAll(/"(?:[^"\\]|\\.)*"/g)];
      const chosen = strings[pick % Math.max(strings.length, 1)];
      if (!chosen) return { body: text, mustRefuse: false };
      const at = chosen.index + 1;
      return { body: `${text.slice(0, at)}\\u0000${text.slice(at)}`, mustRefuse: true };
    }),
    fc
      .tuple(
        base,
        fc.string({ minLength: 1, maxLength: 10 }).filter((name) => !properties.includes(name) && name !== '__proto__'),
        fc.jsonValue(),
      )
      .map(([body, field, value]) => ({
        body: JSON.stringify({ ...body, [field]: value }),
        mustRefuse: true,
      })),
    fc
      .tuple(base, fc.constantFrom(...properties), fc.jsonValue({ maxDepth: 3 }))
      .map(([body, field, value]) => ({ body: JSON.stringify({ ...body, [field]: value }), mustRefuse: false })),
  );
}

/** A body: valid, with one thing wrong, not an object, too deep, or not JSON at all. */
function bodyFor(schema: Schema): fc.Arbitrary<{ body: string; mustRefuse: boolean }> {
  return fc.oneof(
    { weight: 3, arbitrary: valid(schema, true).map((value) => ({ body: JSON.stringify(value), mustRefuse: false })) },
    { weight: 2, arbitrary: valid(schema).map((value) => ({ body: JSON.stringify(value), mustRefuse: false })) },
    { weight: 4, arbitrary: mutated(schema) },
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

/** A path parameter as sent: valid for its schema, a few known refs (so updates and deletes hit), or anything. */
function pathValue(schema: Schema): fc.Arbitrary<string> {
  if (schema.type === 'integer') {
    return fc.oneof(
      fc.integer({ min: 1, max: 2 ** 31 }).map(String),
      fc.constantFrom('0', '-1', '1.5', '99999999999999999999', 'abc', '1e3'),
      rawBytes,
    );
  }
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('c-1', 'c-2', 'faq-1') },
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

/** Every call of one operation. */
function callsFor(method: string, template: string, operation: Operation): fc.Arbitrary<Call> {
  const parameters = operation.parameters ?? [];
  const pathParameters = parameters.filter((p) => p.in === 'path');
  const queryParameters = parameters.filter((p) => p.in === 'query');
  const schema = operation.requestBody?.content['application/json'].schema;
  const noBody = fc.constant<{ body: string | undefined; mustRefuse: boolean }>({ body: undefined, mustRefuse: false });
  return fc
    .tuple(
      fc.tuple(...pathParameters.map((p) => pathValue(p.schema))),
      queryParameters.length > 0 ? queryFor(queryParameters) : fc.constant(''),
      schema ? bodyFor(schema) : noBody,
    )
    .map(([values, query, { body, mustRefuse }]) => {
      let path = template;
      pathParameters.forEach((parameter, index) => (path = path.replace(`{${parameter.name}}`, values[index] as string)));
      return { method, path: `${path}${query}`, body, mustRefuse };
    });
}

/** A path no route has, or a route's path with a method it lacks. */
const strayCalls: fc.Arbitrary<Call> = fc
  .tuple(
    fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
    fc.array(fc.oneof(encodable(1, 12), rawBytes, fc.constantFrom('contacts', 'knowledge', 'webhooks', 'events', 'identity', 'bulk')), {
      minLength: 1,
      maxLength: 4,
    }),
  )
  .map(([method, segments]) => ({
    method,
    path: `/${segments.join('/')}`,
    body: WRITES.has(method) ? '{}' : undefined,
    mustRefuse: false,
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

describe('every route of the OpenAPI document, with generated input (fast-check; whole stack)', () => {
  let stack: Stack;
  const operations = Object.entries((openapi as unknown as { paths: Record<string, Record<string, Operation>> }).paths).flatMap(
    ([template, methods]) => Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), template, operation })),
  );

  beforeAll(async () => {
    const contactsPort = await freePort();
    stack = await startStack(SERVICES, {
      appEnv: {
        'contacts-api': { INTERNAL_PORT: String(contactsPort) },
        'identity-issuer': { CONTACTS_API_URL: `http://127.0.0.1:${contactsPort}` },
        // The write limit is tested on its own; here every generated write must reach its service.
        gateway: { WRITE_LIMIT_PER_MINUTE: '1000000', WRITE_LIMIT_PER_HOUR: '1000000' },
        'webhook-dispatcher': { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_CONCURRENCY: '0' },
      },
    });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  /** Sends one call and checks the three properties; returns nothing, throws on a violation. */
  async function check(call: Call): Promise<void> {
    const write = WRITES.has(call.method);
    const before = write ? await dataSnapshot(stack.dataSource) : undefined;
    const response = await stack.call(call.path, {
      method: call.method,
      headers: call.body === undefined ? {} : { 'content-type': 'application/json' },
      body: call.body,
    });
    const text = await response.text();
    const what = `${call.method} ${call.path} ${call.body?.slice(0, 300) ?? ''} → ${response.status} ${text.slice(0, 300)}`;
    if (response.status >= 500) throw new Error(`server error: ${what}`);
    if (call.mustRefuse && response.status < 400) throw new Error(`accepted an invalid request: ${what}`);
    if (response.status >= 400) {
      try {
        expectErrorShape(response.status, JSON.parse(text));
      } catch (err) {
        throw new Error(`not the error shape: ${what}\n${(err as Error).message}`);
      }
      if (before) {
        const after = await dataSnapshot(stack.dataSource);
        if (JSON.stringify(after) !== JSON.stringify(before)) throw new Error(`a refused write changed data: ${what}`);
      }
    }
  }

  async function run(arbitrary: fc.Arbitrary<Call>): Promise<void> {
    try {
      await fc.assert(
        fc.asyncProperty(arbitrary, (call) => check(call)),
        { seed: SEED, numRuns: RUNS },
      );
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      throw new Error(
        `PROPERTY_SEED=${SEED} PROPERTY_RUNS=${RUNS} reproduces this.\n${cause instanceof Error ? cause.message : ''}\n${(err as Error).message}`,
      );
    }
  }

  it('reads the document: every route of the gateway is there', () => {
    expect(operations.map((o) => `${o.method} ${o.template}`)).toEqual(
      expect.arrayContaining(['PUT /contacts/{ref}', 'POST /knowledge/bulk', 'POST /webhooks', 'GET /events', 'GET /whoami']),
    );
  });

  it.each(operations.map((o) => [`${o.method} ${o.template}`, o] as const))(
    '%s: never a 5xx, 4xx in the error shape, a refused write writes nothing',
    async (_, { method, template, operation }) => {
      await run(callsFor(method, template, operation));
    },
  );

  it('paths no route has, and methods a path lacks: 4xx in the error shape', async () => {
    await run(strayCalls);
  });
});
