import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inlineRefs, OpenApiDocument, operationShape } from './openapi-schemas';
import { CHAT_TOOLS } from './chat-tools';
import { PARITY_TOOLS } from './parity-tools';
import { ToolCatalog } from './mcp-tools.service';

/** The document the gateway serves at GET /api/v1/openapi.json (generated from the DTOs by `npm run openapi`). */
const document = JSON.parse(readFileSync(join(__dirname, '../../../gateway/src/openapi/openapi.json'), 'utf8')) as OpenApiDocument;

describe('tool schemas from the OpenAPI document', () => {
  it('builds a tool for every API operation of the contract, each found in the document', () => {
    const catalog = new ToolCatalog(document);
    expect(catalog.listed.map((tool) => tool.name)).toEqual([...PARITY_TOOLS, ...CHAT_TOOLS].map((spec) => spec.name));
    for (const tool of catalog.listed) {
      expect(JSON.stringify(tool.inputSchema)).not.toContain('$ref');
      expect(JSON.stringify(tool.outputSchema ?? {})).not.toContain('$ref');
    }
  });

  it('merges path parameters (renamed), query parameters and body properties into one object of arguments', () => {
    const shape = operationShape(document, 'PUT', '/knowledge/{externalRef}', { externalRef: 'external_ref' });
    expect(shape.pathParameters).toEqual([{ argument: 'external_ref', parameter: 'externalRef' }]);
    expect(shape.bodyProperties?.sort()).toEqual(['heading', 'text', 'url']);
    expect(shape.inputSchema.required).toEqual(expect.arrayContaining(['external_ref', 'heading', 'text']));
    const body = document.components.schemas['UpsertKnowledgePieceDto'] as { properties: Record<string, unknown> };
    expect((shape.inputSchema.properties as Record<string, unknown>)['text']).toEqual(body.properties['text']);

    const list = operationShape(document, 'GET', '/knowledge');
    expect(list.queryParameters).toEqual(['external_ref', 'after', 'limit']);
    expect(list.bodyProperties).toBeNull();
    expect(list.inputSchema.required).toBeUndefined();
  });

  it('outputs the 2xx body or the error body; no output schema for an answer without a body (204)', () => {
    const get = operationShape(document, 'GET', '/contacts/{ref}');
    const anyOf = get.outputSchema?.['anyOf'] as unknown[];
    expect(anyOf[0]).toEqual(inlineRefs(document.components.schemas['ContactResponseDto'], document.components.schemas));
    expect(anyOf[1]).toEqual(inlineRefs(document.components.schemas['ErrorResponseDto'], document.components.schemas));
    expect(operationShape(document, 'DELETE', '/contacts/{ref}').outputSchema).toBeUndefined();
  });

  it('fails loudly when an operation or a referenced schema is missing', () => {
    expect(() => operationShape(document, 'PATCH', '/contacts/{ref}')).toThrow('no PATCH /contacts/{ref}');
    expect(() => inlineRefs({ $ref: '#/components/schemas/Nope' }, {})).toThrow('cannot inline');
    expect(() => inlineRefs({ $ref: '#/components/schemas/A' }, { A: { properties: { a: { $ref: '#/components/schemas/A' } } } })).toThrow(
      'cannot inline',
    );
  });
});
