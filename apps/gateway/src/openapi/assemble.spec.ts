import type { OpenAPIObject } from '@nestjs/swagger';
import { API_ROUTE_LIST, AppRoute } from '@svc/contracts';
import { ROUTES } from '../proxy/route-table';
import { ApiPart, assembleOpenApi, toJsonSchemaNullability } from './assemble';

/** Each app's document as its controllers would give it: one bare operation per route. */
function partsFor(routes: readonly AppRoute[]): ApiPart[] {
  const documents = new Map<string, OpenAPIObject>();
  for (const { app, method, path } of routes) {
    const document = documents.get(app) ?? { openapi: '3.1.0', info: { title: app, version: '1' }, paths: {} };
    const openApiPath = path.replace(/:([A-Za-z]+)/g, '{$1}');
    document.paths[openApiPath] = { ...document.paths[openApiPath], [method.toLowerCase()]: { responses: {} } };
    documents.set(app, document);
  }
  return [...documents].map(([app, document]) => ({ app, document }));
}

describe('assembleOpenApi and API_ROUTES (the one list of public routes)', () => {
  it('the gateway proxies every route of API_ROUTES that is not its own, to the app that serves it', () => {
    expect(ROUTES.map((r) => `${r.upstream} ${r.method} ${r.path}`)).toEqual(
      API_ROUTE_LIST.filter((r) => r.app !== 'gateway').map((r) => `${r.app} ${r.method} ${r.path}`),
    );
  });

  it('assembles when the apps document exactly the routes of API_ROUTES', () => {
    const document = assembleOpenApi(partsFor(API_ROUTE_LIST));
    const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`));
    expect(operations).toHaveLength(API_ROUTE_LIST.length);
  });

  it('fails when an app documents a route that API_ROUTES does not list (so the gateway would not proxy it)', () => {
    const extra: AppRoute = { app: 'contacts-api', method: 'POST', path: '/contacts/:ref/merge' };
    expect(() => assembleOpenApi(partsFor([...API_ROUTE_LIST, extra]))).toThrow(
      'contacts-api documents POST /contacts/:ref/merge, which API_ROUTES does not give it',
    );
  });

  it('fails when API_ROUTES lists a route no app documents, or gives it to another app', () => {
    const [first, ...rest] = API_ROUTE_LIST;
    expect(() => assembleOpenApi(partsFor(rest))).toThrow(`API_ROUTES has ${first?.app} ${first?.method} ${first?.path}`);
    const moved = API_ROUTE_LIST.map((r) => (r.app === 'events-api' ? { ...r, app: 'knowledge-api' } : r));
    expect(() => assembleOpenApi(partsFor(moved))).toThrow('knowledge-api documents GET /events, which API_ROUTES does not give it');
  });
});

describe('toJsonSchemaNullability (OpenAPI 3.0 `nullable` → 3.1)', () => {
  it('turns a nullable type into a union with null, enums included, at any depth', () => {
    expect(
      toJsonSchemaNullability({
        properties: {
          phone: { type: 'string', nullable: true, example: '+447700900123' },
          purpose: { type: 'string', enum: ['email', 'phone'], nullable: true },
          tags: { type: 'array', items: { type: 'string', nullable: true } },
          name: { type: 'string' },
        },
      }),
    ).toEqual({
      properties: {
        phone: { type: ['string', 'null'], example: '+447700900123' },
        purpose: { type: ['string', 'null'], enum: ['email', 'phone', null] },
        tags: { type: 'array', items: { type: ['string', 'null'] } },
        name: { type: 'string' },
      },
    });
  });

  it('wraps a nullable reference in oneOf with null', () => {
    expect(toJsonSchemaNullability({ $ref: '#/components/schemas/X', nullable: true })).toEqual({
      oneOf: [{ $ref: '#/components/schemas/X' }, { type: 'null' }],
    });
  });

  it('leaves `nullable: false` out and everything else as it is', () => {
    expect(toJsonSchemaNullability({ type: 'integer', nullable: false, minimum: 1 })).toEqual({ type: 'integer', minimum: 1 });
  });
});
