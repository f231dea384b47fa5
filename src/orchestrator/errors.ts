/** The closed table of error codes: every failure any surface reports is one of these. */

/** Each code's HTTP status and a default message. Add codes here; mappings are exhaustive. */
export const ERRORS = {
  invalid_input: { status: 400, message: 'The request is not valid.' },
  unknown_field: { status: 400, message: 'The request has a field this operation does not know.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  missing_idempotency_key: { status: 400, message: 'This operation requires an Idempotency-Key header.' },
  unauthenticated: { status: 401, message: 'A valid bearer credential is required.' },
  forbidden: { status: 403, message: 'This credential may not perform this operation.' },
  insufficient_scope: { status: 403, message: 'The API key lacks a scope this operation requires.' },
  not_found: { status: 404, message: 'Not found.' },
  route_not_found: { status: 404, message: 'No operation at this path.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed here.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  idempotency_in_flight: { status: 409, message: 'A request with this Idempotency-Key is still being processed.' },
  idempotency_conflict: { status: 422, message: 'This Idempotency-Key was used with a different request.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'Request bodies must be application/json.' },
  rate_limited: { status: 429, message: 'Too many requests; retry later.' },
  internal_error: { status: 500, message: 'An unexpected error occurred.' },
  unavailable: { status: 503, message: 'The service is temporarily unavailable.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** The wire shape of every error body. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
  retryAfter?: number;
}

/** A domain error: thrown by handlers and services, mapped to its status by the table. */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;
  readonly retryAfter: number | undefined;
  constructor(code: ErrorCode, message?: string, details?: Record<string, unknown>, retryAfter?: number) {
    super(message ?? ERRORS[code].message);
    this.code = code;
    this.details = details;
    this.retryAfter = retryAfter;
  }
  get status(): number {
    return ERRORS[this.code].status;
  }
  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message };
    if (this.details) body.details = this.details;
    if (this.retryAfter !== undefined) body.retryAfter = this.retryAfter;
    return body;
  }
}

/** Any thrown value as a ToolError; unexpected ones become a generic internal_error. */
export function toToolError(err: unknown): ToolError {
  if (err instanceof ToolError) return err;
  return new ToolError('internal_error');
}

export function statusOf(code: ErrorCode): number {
  return ERRORS[code].status;
}
