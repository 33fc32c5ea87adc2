import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min, registerDecorator, ValidateIf, ValidationOptions } from 'class-validator';

/** Validates the property only when it was sent: `null` then fails the type check instead of passing as `IsOptional` lets it. */
export const IfSent = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** `min` to `max` code points, as PostgreSQL's `char_length` counts (not UTF-16 units like `MaxLength`). */
export function CodePoints(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'codePoints',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `$property must be ${min} to ${max} characters`, ...options },
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          const length = [...value].length;
          return length >= min && length <= max;
        },
      },
    });
}

/** A UUID as PostgreSQL writes one (any version), either case. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_PATTERN.test(value);
/** A UUID of any version (`IsUUID` takes only versions 1 to 8 with the RFC variant). */
export const IsAnyUuid = (options?: ValidationOptions) => Matches(UUID_PATTERN, { message: '$property is not a UUID', ...options });

/** No control characters at all (refs, headings, questions). */
export const NoControlCharacters = () => Matches(/^\P{Cc}*$/u, { message: '$property must not contain control characters' });

/** Text may hold line breaks and tabs, never another control character (PostgreSQL refuses NUL). */
export const PlainText = () =>
  Matches(/^(?:\P{Cc}|[\t\n\r])*$/u, { message: '$property must not contain control characters other than tab and line breaks' });

/** A query parameter of up to `digits` digits becomes a number; anything else stays for `IsInt` to refuse. */
export const QueryInteger = (digits: number) =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && new RegExp(`^\\d{1,${digits}}$`).test(value) ? Number(value) : value,
  );

/** A page's `after` id in a query string (optional): a whole number of 0 or more. */
export function AfterId(): PropertyDecorator {
  const message = { message: '$property must be a whole number of 0 or more' };
  return applyDecorators(IsOptional(), QueryInteger(16), IsInt(message), Min(0, message), Max(Number.MAX_SAFE_INTEGER, message));
}

/** A page's `limit` in a query string (optional): a whole number from 1 to `max`. */
export function PageLimit(max: number): PropertyDecorator {
  const message = { message: `$property must be a whole number from 1 to ${max}` };
  return applyDecorators(IsOptional(), QueryInteger(16), IsInt(message), Min(1, message), Max(max, message));
}
