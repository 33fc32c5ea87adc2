import { ArgumentMetadata, Injectable, ValidationError, ValidationPipe } from '@nestjs/common';
import { ErrorDetail } from '@svc/contracts';
import { ApiError } from './errors';

function pathOf(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

/** Flattens class-validator's tree into `details`, one entry per bad field (`items[0].text`). */
export function toDetails(errors: ValidationError[], parent = ''): ErrorDetail[] {
  return errors.flatMap((error) => {
    const path = error.property ? pathOf(parent, error.property) : parent || 'body';
    const own = Object.values(error.constraints ?? {}).map((message) => ({ path, message }));
    return [...own, ...toDetails(error.children ?? [], path)];
  });
}

/**
 * The global pipe: whitelist, forbid unknown fields, transform. A bad body is 400
 * `validation_failed`; a bad query string is 400 `invalid_parameter`; both name each field.
 */
@Injectable()
export class ApiValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors) => new ApiError('validation_failed', 'The request has invalid fields.', toDetails(errors)),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    // Nest would turn a body of `null` into `{}` (a PUT of nothing but defaults); a DTO body is an object.
    if (metadata.type === 'body' && value !== undefined && this.toValidate(metadata) && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new ApiError('validation_failed', 'The request has invalid fields.', [{ path: 'body', message: 'body must be a JSON object' }]);
    }
    try {
      return await super.transform(value, metadata);
    } catch (err) {
      if (err instanceof ApiError && metadata.type === 'query') {
        throw new ApiError('invalid_parameter', 'The query string has invalid parameters.', err.details);
      }
      throw err;
    }
  }
}
