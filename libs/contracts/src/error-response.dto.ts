import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ERROR_STATUS, ErrorCode } from './errors';

export class ErrorDetailDto {
  @ApiProperty({ example: 'email', description: 'The field (or `items[i].field`) the problem is about.' })
  path!: string;

  @ApiProperty({ example: 'must be an email address' })
  message!: string;
}

export class ErrorPayloadDto {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), example: 'validation_failed' })
  code!: ErrorCode;

  @ApiProperty({ example: 'The request has invalid fields.' })
  message!: string;

  @ApiPropertyOptional({ type: [ErrorDetailDto] })
  details?: ErrorDetailDto[];
}

/** The body of every error response. */
export class ErrorResponseDto {
  @ApiProperty({ type: ErrorPayloadDto })
  error!: ErrorPayloadDto;
}

/** An error body as documentation examples show it. */
export function errorExample(code: ErrorCode, message: string, details?: ErrorDetailDto[]): ErrorResponseDto {
  return { error: { code, message, ...(details ? { details } : {}) } };
}

/** The message of `validation_failed`: the fields' problems are in `details`. */
export const INVALID_FIELDS = 'The request has invalid fields.';
/** The message of `invalid_parameter`: the query string's problems are in `details`. */
export const INVALID_PARAMETERS = 'The query string has invalid parameters.';

/** A `validation_failed` body as documentation examples show it. */
export function invalidFieldsExample(...details: ErrorDetailDto[]): ErrorResponseDto {
  return errorExample('validation_failed', INVALID_FIELDS, details);
}

/** The message of `invalid_json`. */
export const INVALID_JSON = 'The request body is not valid JSON.';
/** The `invalid_json` body, as documentation examples show it. */
export const INVALID_JSON_EXAMPLE = errorExample('invalid_json', INVALID_JSON);
