import type { OpenAPIObject } from '@nestjs/swagger';
import { describeApi } from '@svc/platform';
import { app } from './app';

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;
type Schema = { properties?: Record<string, { example?: unknown; type?: string }> };

describe('contacts-api OpenAPI document', () => {
  let document: OpenAPIObject;
  const operation = (path: string, method: 'get' | 'put' | 'delete'): Operation => document.paths[path]?.[method] as Operation;
  const schemaOf = (response: unknown) =>
    (response as { content?: Record<string, { schema?: unknown }> }).content?.['application/json']?.schema;

  beforeAll(async () => {
    document = await describeApi(app);
  });

  it('lists exactly the public routes, and none of the internal ones', () => {
    const routes = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(['DELETE /contacts/{ref}', 'GET /contacts', 'GET /contacts/{ref}', 'PUT /contacts/{ref}']);
  });

  it('documents the PUT body, both success statuses and its 400, 404 and 409 with examples', () => {
    const put = operation('/contacts/{ref}', 'put');
    expect(put.operationId).toBe('upsertContact');
    expect(schemaOf(put.requestBody)).toEqual({ $ref: '#/components/schemas/UpsertContactDto' });
    for (const status of ['200', '201'])
      expect(schemaOf(put.responses[status])).toEqual({ $ref: '#/components/schemas/ContactResponseDto' });
    for (const status of ['400', '404', '409']) {
      const content = (put.responses[status] as { content: Record<string, { schema: unknown; example?: unknown; examples?: unknown }> })
        .content['application/json'];
      expect(content?.schema).toEqual({ $ref: '#/components/schemas/ErrorResponseDto' });
      expect(content?.example ?? content?.examples).toBeDefined();
    }
  });

  it('documents the reads and the erasure with their errors', () => {
    expect(Object.keys(operation('/contacts/{ref}', 'get').responses).sort()).toEqual(['200', '400', '404']);
    expect(Object.keys(operation('/contacts/{ref}', 'delete').responses).sort()).toEqual(['204', '400', '404']);
    const find = operation('/contacts', 'get');
    expect(Object.keys(find.responses).sort()).toEqual(['200', '400']);
    expect(schemaOf(find.responses['200'])).toEqual({ $ref: '#/components/schemas/ContactListResponseDto' });
    expect(find.parameters?.map((p) => ('name' in p ? p.name : p.$ref)).sort()).toEqual(['email', 'phone']);
  });

  it('gives every scalar field of the request and response schemas an example', () => {
    for (const name of ['UpsertContactDto', 'ConsentInputDto', 'ContactResponseDto', 'ConsentResponseDto']) {
      const schema = document.components?.schemas?.[name] as Schema;
      const missing = Object.entries(schema.properties ?? {}).filter(
        ([, property]) => property.type !== 'array' && !('example' in property),
      );
      expect({ name, missing: missing.map(([field]) => field) }).toEqual({ name, missing: [] });
    }
  });
});
