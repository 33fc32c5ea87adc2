import { REPO_ROOT } from '@svc/testing';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleOf } from './assemble';
import document from './openapi.json';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  example?: unknown;
  schema?: { type?: string; example?: unknown };
}
interface Operation {
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content: Record<string, { example?: unknown }> };
}

const schemas = document.components.schemas as Record<string, unknown>;

/** A value for a required parameter: its example, or one of its type. */
function valueOf(parameter: Parameter): unknown {
  return (
    parameter.example ??
    parameter.schema?.example ??
    exampleOf(parameter.schema, schemas) ??
    (parameter.schema?.type === 'integer' ? 1 : 'x')
  );
}

/** One openapi-fetch call of an operation: its required parameters and the documented request example as the body. */
function callOf(path: string, method: string, operation: Operation): string {
  const params: Record<string, Record<string, unknown>> = {};
  for (const parameter of operation.parameters ?? []) {
    if ('$ref' in parameter || !parameter.required) continue;
    (params[parameter.in] ??= {})[parameter.name] = valueOf(parameter);
  }
  const init: Record<string, unknown> = {};
  if (Object.keys(params).length > 0) init['params'] = params;
  const body = operation.requestBody?.content['application/json']?.example;
  if (body !== undefined) init['body'] = body;
  return `  await client.${method.toUpperCase()}(${JSON.stringify(path)}, ${JSON.stringify(init)});`;
}

/**
 * What an integrator does: generate types from the document with openapi-typescript's default
 * options, call every operation with openapi-fetch (the documented examples as bodies), and
 * read a typed event; all of it must compile under `strict`. The generated event types must also
 * be exactly the service's own (`PublicEvent`, both ways).
 */
describe('a typed client generated from the OpenAPI document', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-typed-client-'));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('is generated with the default options and type-checks a call of every operation (tsc --strict)', () => {
    const generate = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'node_modules/openapi-typescript/bin/cli.js'),
        join(REPO_ROOT, 'apps/gateway/src/openapi/openapi.json'),
        '-o',
        join(dir, 'schema.ts'),
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(generate.status).toBe(0);

    const calls: string[] = [];
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, operation] of Object.entries(item)) calls.push(callOf(path, method, operation));
    }
    expect(calls.length).toBeGreaterThanOrEqual(14);
    const eventsModule = join(REPO_ROOT, 'libs/contracts/src/events');
    writeFileSync(
      join(dir, 'client.ts'),
      `import createClient from 'openapi-fetch';
import type { components, paths, webhooks } from './schema';
import type { PublicEvent } from ${JSON.stringify(eventsModule)};

const client = createClient<paths>({ baseUrl: 'https://api.example.com/api/v1', headers: { authorization: 'Bearer svc_cust_x' } });

export async function everyOperation(): Promise<void> {
${calls.join('\n')}
}

/** Events narrow on \`event\`: each kind's data is typed. */
export async function readFeed(): Promise<string[]> {
  const { data, error } = await client.GET('/events', { params: { query: { after: 0, limit: 100 } } });
  if (error) return [error.error.code];
  return data.events.map((event) => {
    switch (event.event) {
      case 'message.sent':
        return event.data.message.author;
      case 'handover.created':
        return event.data.reason + event.data.reach.method;
      case 'consent.withdrawn':
        return event.data.conversation === null ? 'api' : event.data.conversation.url;
      default:
        return event.data.contact.name;
    }
  });
}

/** A webhook receiver's body is the same event type. */
export type MessageSentDelivery = webhooks['message.sent']['post']['requestBody']['content']['application/json'];
export const delivered = (body: MessageSentDelivery): 'assistant' | 'team' => body.data.message.author;

/** The generated event types and the service's own are the same, both ways. */
type Generated = components['schemas']['EventDto'];
export const toGenerated = (event: PublicEvent): Generated => event;
export const fromGenerated = (event: Generated): PublicEvent => event;

/** A consent without \`granted\` is a valid request body (its default is not a requirement). */
export const consent: components['schemas']['ConsentInputDto'] = { purpose: 'future_email', text: 'Yes', given_at: '2026-11-21T10:04:05Z', source: 'form' };
`,
    );
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          lib: ['es2022', 'dom'],
          types: [],
        },
        files: ['client.ts'],
      }),
    );
    const check = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(check.stdout + check.stderr).toBe('');
    expect(check.status).toBe(0);
  }, 120_000);
});
