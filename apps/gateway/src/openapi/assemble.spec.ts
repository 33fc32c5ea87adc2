import { toJsonSchemaNullability } from './assemble';

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
