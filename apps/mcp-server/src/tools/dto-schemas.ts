import { getMetadataStorage } from 'class-validator';
import type { JsonSchema } from './openapi-schemas';

type DtoClass = new () => object;

/**
 * The JSON schema of a class-validator DTO of libs/contracts, read from the rules its decorators
 * registered (the same rules the service validates with): for the chat's back-office DTOs, which
 * are not in the public OpenAPI document. Rules with no JSON-schema counterpart (code-point
 * lengths, language tags) stay with the service, which answers `validation_failed` for them.
 */
export function dtoSchema(dto: DtoClass): JsonSchema & { type: 'object'; properties: Record<string, JsonSchema> } {
  const properties: Record<string, JsonSchema> = {};
  const optional = new Set<string>();
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    const property = (properties[rule.propertyName] ??= {});
    const [first] = (rule.constraints ?? []) as unknown[];
    switch (rule.name) {
      case 'isOptional':
        optional.add(rule.propertyName);
        break;
      case 'isString':
      case 'isLanguageTag':
        property['type'] = 'string';
        break;
      case 'isInt':
        property['type'] = 'integer';
        break;
      case 'isBoolean':
        property['type'] = 'boolean';
        break;
      case 'isIn':
        property['enum'] = [...(first as unknown[])];
        break;
      case 'min':
        property['minimum'] = first;
        break;
      case 'max':
        property['maximum'] = first;
        break;
      case 'maxLength':
        property['maxLength'] = first;
        break;
      case 'minLength':
        property['minLength'] = first;
        break;
      case 'matches':
        if (first instanceof RegExp)
          property['allOf'] = [...((property['allOf'] as JsonSchema[] | undefined) ?? []), { pattern: first.source }];
        break;
      default:
        break;
    }
  }
  const required = Object.keys(properties).filter((name) => !optional.has(name));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}
