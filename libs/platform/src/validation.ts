import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { ErrorDetail, INVALID_FIELDS, INVALID_PARAMETERS } from '@svc/contracts';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { closest, distance } from 'fastest-levenshtein';
import { ApiError } from './errors';

function pathOf(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

/** Type checks: when one fails, only it is shown (the length and range checks would only repeat it). */
const KIND_CHECKS = new Set([
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'isIn',
  'isEnum',
  'nestedValidation',
  'isDefined',
]);

/** The known fields of a DTO class (those with a validation rule), for "did you mean" suggestions. */
function knownFields(target: unknown): string[] {
  if (target === null || typeof target !== 'object') return [];
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(target.constructor, '', true, false);
  return [...new Set(metadatas.map((metadata) => metadata.propertyName))];
}

/** The known field a mistyped name most likely meant: at most half its letters apart (at most 3 edits, and never all of them). */
export function suggestField(unknown: string, known: readonly string[]): string | undefined {
  if (known.length === 0) return undefined;
  const best = closest(
    unknown.toLowerCase(),
    known.map((name) => name.toLowerCase()),
  );
  const match = known.find((name) => name.toLowerCase() === best) as string;
  const edits = distance(unknown.toLowerCase(), best);
  return edits <= Math.min(3, Math.max(1, Math.floor(unknown.length / 2))) && edits < unknown.length ? match : undefined;
}

/** One message for one bad field: an unknown name (with the closest known one), a missing value, the kind, or every rule broken. */
function messageOf(error: ValidationError): string | undefined {
  const constraints = error.constraints ?? {};
  const names = Object.keys(constraints);
  if (names.length === 0) return undefined;
  if (names.includes('whitelistValidation')) {
    const suggestion = suggestField(error.property, knownFields(error.target));
    return `${error.property} is not a known field${suggestion ? `; did you mean ${suggestion}?` : ''}`;
  }
  if (error.value === undefined) return `${error.property} is required`;
  const kind = names.filter((name) => KIND_CHECKS.has(name));
  const shown = (kind.length > 0 ? kind : names).map((name) => constraints[name] as string);
  return [...new Set(shown)].join('; ');
}

/** Flattens class-validator's tree into one `details` entry per bad field (`items[0].text`), saying what to fix. */
export function toDetails(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((error) => {
    const path = error.property ? pathOf(parent, error.property) : parent || 'body';
    const message = messageOf(error);
    const own = message === undefined ? [] : [{ path, message }];
    // A missing object's fields are not listed one by one: the object is required.
    if (message !== undefined && error.value === undefined) return own;
    return [...own, ...toDetails(error.children ?? [], path)];
  });
}

/** Checks a value no pipe sees (a broker message) against a DTO class: one line per bad field, none when valid. */
export function validationProblems(dto: new () => object, value: unknown): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return ['the value is not an object'];
  const errors = validateSync(plainToInstance(dto, value), { validationError: { target: true, value: true } });
  return toDetails(errors).map(({ path, message }) => {
    const name = path.slice(path.lastIndexOf('.') + 1);
    return message.startsWith(`${name} `) ? `${path}${message.slice(name.length)}` : `${path}: ${message}`;
  });
}

/** Names the whitelist never sees (deleted by Nest or skipped by class-transformer): each is an unknown field. */
const DROPPED_NAMES = new Set(['prototype', ...Object.getOwnPropertyNames(Object.prototype)]);

/** The fields of `value` (nested objects and arrays included) that would be dropped unseen, as detail paths. */
export function droppedFields(value: unknown, path = ''): ErrorDetail[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const at = pathOf(path, key);
    return DROPPED_NAMES.has(key) ? [{ path: at, message: `${at} is not a known field` }] : droppedFields(child, at);
  });
}

/** The global pipe: a bad body is 400 `validation_failed`, a bad query 400 `invalid_parameter`, each field named. */
@Injectable()
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      // The value and object are kept for the messages (is it missing? which fields are known?); details never show them.
      validationError: { target: true, value: true },
      exceptionFactory: (errors) => new ApiError('validation_failed', INVALID_FIELDS, toDetails(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Nest would turn a body of `null` into `{}` (a PUT of nothing but defaults); a DTO body is an object.
    if (
      metadata.type === 'body' &&
      value !== undefined &&
      this.toValidate(metadata) &&
      (value === null || typeof value !== 'object' || Array.isArray(value))
    ) {
      throw new ApiError('validation_failed', INVALID_FIELDS, [{ path: 'body', message: 'body must be a JSON object' }]);
    }
    const dropped = this.toValidate(metadata) && (metadata.type === 'body' || metadata.type === 'query') ? droppedFields(value) : [];
    if (dropped.length > 0) {
      throw metadata.type === 'query'
        ? new ApiError('invalid_parameter', INVALID_PARAMETERS, dropped)
        : new ApiError('validation_failed', INVALID_FIELDS, dropped);
    }
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      if (err instanceof ApiError && metadata.type === 'query') {
        throw new ApiError('invalid_parameter', INVALID_PARAMETERS, err.details);
      }
      throw err;
    }
  }
}
