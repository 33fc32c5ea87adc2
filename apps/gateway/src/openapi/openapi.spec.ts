import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@svc/testing';
import { API_ROUTES, EVENT_KINDS } from '@svc/contracts';
import { WEBHOOK_HEADERS } from '@svc/webhook-signing';
import { ROUTES } from '../proxy/route-table';
import document from './openapi.json';

// Runs after `npm run build` (the test command builds first): the tool reads the compiled apps.
function openapiTool(...args: string[]) {
  return spawnSync(process.execPath, [join(REPO_ROOT, 'tools/openapi.mjs'), ...args], { cwd: REPO_ROOT, encoding: 'utf8' });
}

describe('the OpenAPI document', () => {
  it('is what the code generates, and valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', () => {
    const result = openapiTool('--check');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('the validator it relies on refuses a broken document', () => {
    const file = join(tmpdir(), `openapi-broken-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ ...document, paths: { '/x': { get: { responses: { '200': { description: 1 } } } } } }));
    expect(openapiTool('--validate', file).status).toBe(1);
  });

  it('describes every operation with the error responses the gateway gives', () => {
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
      for (const [method, operation] of Object.entries(item)) {
        expect({ path, method, has401: '401' in operation.responses, has402: '402' in operation.responses }).toEqual({
          path,
          method,
          has401: true,
          has402: true,
        });
      }
    }
  });

  it('lists exactly the routes the gateway serves or proxies, no more, no fewer', () => {
    const routed = [...ROUTES.map((r) => `${r.method} ${r.path}`), `GET ${API_ROUTES.whoami.get.path}`];
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    );
    expect(documented.sort()).toEqual(routed.sort());
  });

  interface DocumentedOperation {
    tags?: string[];
    summary?: string;
    description?: string;
    parameters?: Array<{ $ref?: string }>;
    requestBody?: { content: Record<string, { example?: unknown }> };
    responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }>;
  }
  const operations = Object.entries(document.paths as Record<string, Record<string, DocumentedOperation>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, method, operation })),
  );

  it('gives every operation a declared tag, a summary and a description', () => {
    const declared = new Set(document.tags.map((tag) => tag.name));
    for (const { name, operation } of operations) {
      expect({ name, tagged: (operation.tags ?? []).length > 0 && (operation.tags ?? []).every((tag) => declared.has(tag)) }).toEqual({
        name,
        tagged: true,
      });
      expect({ name, summary: Boolean(operation.summary), description: Boolean(operation.description) }).toEqual({
        name,
        summary: true,
        description: true,
      });
    }
  });

  it('documents X-Request-Id on every operation (request) and response; Idempotency-Key, its 409 and Idempotent-Replayed on every POST', () => {
    for (const { name, method, operation } of operations) {
      const refs = (operation.parameters ?? []).map((p) => p.$ref);
      expect({ name, requestId: refs.includes('#/components/parameters/RequestId') }).toEqual({ name, requestId: true });
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = response.$ref
          ? (document.components.responses as Record<string, { headers?: Record<string, unknown> }>)[
              response.$ref.split('/').pop() as string
            ]?.headers
          : response.headers;
        expect({ name, status, requestId: 'X-Request-Id' in (headers ?? {}) }).toEqual({ name, status, requestId: true });
        if (method === 'post' && status.startsWith('2'))
          expect({ name, status, replayed: 'Idempotent-Replayed' in (headers ?? {}) }).toEqual({ name, status, replayed: true });
      }
      if (method === 'post') {
        expect({
          name,
          idempotency: refs.includes('#/components/parameters/IdempotencyKey'),
          conflict: '409' in operation.responses,
        }).toEqual({ name, idempotency: true, conflict: true });
      }
    }
  });

  it('gives every request body an example', () => {
    for (const { name, operation } of operations) {
      if (!operation.requestBody) continue;
      expect({ name, example: operation.requestBody.content['application/json']?.example !== undefined }).toEqual({ name, example: true });
    }
  });

  it('types events per kind: EventDto is a union discriminated by `event`, each kind with its own data schema', () => {
    const schemas = document.components.schemas as Record<
      string,
      { oneOf?: unknown[]; discriminator?: { propertyName: string; mapping: Record<string, string> }; properties?: Record<string, unknown> }
    >;
    const eventDto = schemas['EventDto'];
    expect(eventDto?.discriminator?.propertyName).toBe('event');
    expect(Object.keys(eventDto?.discriminator?.mapping ?? {})).toEqual([...EVENT_KINDS]);
    expect(eventDto?.oneOf).toHaveLength(EVENT_KINDS.length);
    expect(schemas['MessageSentData']?.properties).toEqual(
      expect.objectContaining({ contact: expect.anything(), message: expect.anything(), conversation: expect.anything() }),
    );
  });

  it('has a 3.1 webhooks section: every kind, its payload and the signature headers', () => {
    const webhooks = (
      document as unknown as {
        webhooks: Record<
          string,
          {
            post: {
              parameters: Array<{ name: string; in: string }>;
              requestBody: { content: Record<string, { schema: { $ref: string } }> };
            };
          }
        >;
      }
    ).webhooks;
    expect(Object.keys(webhooks)).toEqual([...EVENT_KINDS]);
    for (const [kind, item] of Object.entries(webhooks)) {
      expect(item.post.parameters.map((p) => p.name)).toEqual(Object.values(WEBHOOK_HEADERS));
      expect(item.post.requestBody.content['application/json']?.schema.$ref).toMatch(
        new RegExp(
          `/${kind
            .split(/[._]/)
            .map((w) => w[0]?.toUpperCase() + w.slice(1))
            .join('')}Event$`,
        ),
      );
    }
  });
});
