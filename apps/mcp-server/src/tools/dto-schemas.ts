import { getMetadataStorage } from 'class-validator';
import type { JsonSchema } from './openapi-schemas';

type DtoClass = new () => object;

/** class-validator rules that are one JSON-schema keyword each: the type they fix, or the keyword their constraint goes to. */
const TYPES = new Map([
  ['isString', 'string'],
  ['isLanguageTag', 'string'],
  ['isInt', 'integer'],
  ['isBoolean', 'boolean'],
]);
const KEYWORDS = new Map([
  ['min', 'minimum'],
  ['max', 'maximum'],
  ['maxLength', 'maxLength'],
  ['minLength', 'minLength'],
]);

/** The JSON schema of a contracts DTO from its decorators' rules (rules JSON Schema cannot say stay with the service). */
export function dtoSchema(dto: DtoClass): JsonSchema & { type: 'object'; properties: Record<string, JsonSchema> } {
  const properties: Record<string, JsonSchema> = {};
  const optional = new Set<string>();
  const nullable = new Set<string>();
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    const property = (properties[rule.propertyName] ??= {});
    const [first] = (rule.constraints ?? []) as unknown[];
    const type = TYPES.get(rule.name ?? '');
    const keyword = KEYWORDS.get(rule.name ?? '');
    if (type) property['type'] = type;
    else if (keyword) property[keyword] = first;
    else if (rule.name === 'isOptional') optional.add(rule.propertyName);
    else if (rule.name === 'isNullable') nullable.add(rule.propertyName);
    else if (rule.name === 'isIn') property['enum'] = [...(first as unknown[])];
    else if (rule.name === 'matches' && first instanceof RegExp)
      property['allOf'] = [...((property['allOf'] as JsonSchema[] | undefined) ?? []), { pattern: first.source }];
  }
  for (const name of nullable) {
    const property = properties[name] as JsonSchema;
    property['type'] = [property['type'] ?? 'string', 'null'];
  }
  const required = Object.keys(properties).filter((name) => !optional.has(name));
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}
