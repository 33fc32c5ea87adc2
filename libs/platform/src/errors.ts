import { HttpException } from '@nestjs/common';
import { ERROR_STATUS, ErrorBody, ErrorCode, ErrorDetail, INVALID_JSON } from '@svc/contracts';

/** An error the caller caused or may see: it becomes `{error:{code,message,details}}`. */
export class ApiError extends HttpException {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message, ERROR_STATUS[code]);
  }
}

const UNAVAILABLE_MESSAGE = 'The service is temporarily unavailable; retry shortly.';

/** 503 `unavailable` with Retry-After: a dependency did not answer; the caller retries shortly. */
export function unavailableError(message = UNAVAILABLE_MESSAGE): ApiError {
  return new ApiError('unavailable', message, undefined, { 'retry-after': '1' });
}

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'validation_failed',
  401: 'unauthorized',
  402: 'plan_required',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
};

const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_json',
  FST_ERR_CTP_INVALID_TYPE: 'unsupported_media_type',
};

const MESSAGES: Partial<Record<ErrorCode, string>> = {
  invalid_json: INVALID_JSON,
  unsupported_media_type: 'The request body must be JSON; send Content-Type: application/json.',
  payload_too_large: 'The request body is larger than 1 MiB.',
  internal_error: 'Something went wrong on our side. It has been logged.',
};

function errorResponse(code: ErrorCode, message: string, details?: ErrorDetail[], headers: Record<string, string> = {}): ErrorResponse {
  const error: ErrorBody['error'] = { code, message };
  if (details?.length) error.details = details;
  return { status: ERROR_STATUS[code], body: { error }, headers };
}

/** Network errors of a connection to a dependency (PostgreSQL, Redis, RabbitMQ, another service). */
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
]);
/** What node-postgres (pool and client) says when a connection is gone or cannot be had. */
const DATABASE_CONNECTION_MESSAGES = [
  /timeout exceeded when trying to connect/i,
  /connection terminated/i,
  /Client has encountered a connection error/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
];

/** Whether a dependency is unreachable now: a network error, SQLSTATE 08/57P01-03/53 or a pool timeout, raw or wrapped. */
export function isDependencyUnavailable(err: unknown): boolean {
  for (const candidate of [err, (err as { driverError?: unknown } | null)?.driverError, (err as { cause?: unknown } | null)?.cause]) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const { code, message } = candidate as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK_ERROR_CODES.has(code) || /^(08...|57P0[123]|53...)$/.test(code))) return true;
    if (typeof message === 'string' && DATABASE_CONNECTION_MESSAGES.some((pattern) => pattern.test(message))) return true;
  }
  return false;
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

/** Maps anything thrown to the contract's error shape (unreachable dependency: 503); undefined for a server fault. */
export function toErrorResponse(err: unknown): ErrorResponse | undefined {
  if (err instanceof ApiError) return errorResponse(err.code, err.message, err.details, err.headers);
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const code = CODE_BY_STATUS[status];
    if (code) return errorResponse(code, MESSAGES[code] ?? err.message);
    if (status >= 400 && status < 500) return { status, body: { error: { code: 'validation_failed', message: err.message } }, headers: {} };
    return undefined;
  }
  const fastifyCode = (err as { code?: unknown } | null)?.code;
  if (typeof fastifyCode === 'string' && Object.hasOwn(FASTIFY_CODES, fastifyCode)) {
    const code = FASTIFY_CODES[fastifyCode] as ErrorCode;
    return errorResponse(code, MESSAGES[code] ?? 'The request is invalid.');
  }
  const status = statusOf(err);
  if (err instanceof SyntaxError && status === 400) return errorResponse('invalid_json', MESSAGES.invalid_json as string);
  if (status !== undefined && status >= 400 && status < 500) {
    const code = CODE_BY_STATUS[status] ?? 'validation_failed';
    return { status, body: { error: { code, message: MESSAGES[code] ?? 'The request is invalid.' } }, headers: {} };
  }
  if (isDependencyUnavailable(err)) return toErrorResponse(unavailableError());
  return undefined;
}

export const INTERNAL_ERROR: ErrorResponse = errorResponse('internal_error', MESSAGES.internal_error as string);
