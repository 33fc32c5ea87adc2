/**
 * Error codes of the public API. Part of the contract: integrators branch on them.
 * Do not rename without a new API version.
 */
export const ERROR_STATUS = {
  invalid_json: 400,
  validation_failed: 400,
  invalid_parameter: 400,
  limit_exceeded: 400,
  unauthorized: 401,
  plan_required: 402,
  forbidden: 403,
  forbidden_origin: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  header_too_large: 431,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Whether `code` (another service's answer, say) is one of ours: an own key, never `constructor` or `__proto__`. */
export const isErrorCode = (code: unknown): code is ErrorCode => typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code);

export interface ErrorDetail {
  /** Where the problem is: a field name, a dotted path or `items[3].text`. */
  path: string;
  message: string;
}

export interface ErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    details?: ErrorDetail[];
  };
}
