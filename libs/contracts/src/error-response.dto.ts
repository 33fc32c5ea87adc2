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
