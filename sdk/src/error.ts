/** The one error the SDK throws for a refused call: the API's stable code, its HTTP status and message. */
import type { ErrorCode } from './operations.generated.ts';

/** Codes the SDK itself reports: an answer that is not the API's error body (a proxy's HTML page, say). */
export type ClientErrorCode = 'unexpected_response';

/** What a refused call carries, as the API sent it (`docs/errors.md`). */
export interface TesseraErrorInit {
  status: number;
  code: ErrorCode | ClientErrorCode;
  message: string;
  retryAfter?: number | undefined;
  details?: Record<string, unknown> | undefined;
  idempotencyKey?: string | undefined;
}

/**
 * A call the API refused. `code` is stable (switch on it, never on `message`); `retryAfter` (seconds) comes with
 * `429 rate_limited` and `409 idempotency_in_flight`; `idempotencyKey` is the key the call was sent with, so a retry
 * with the same key can never move money twice.
 */
export class TesseraError extends Error {
  override readonly name = 'TesseraError';
  readonly status: number;
  readonly code: ErrorCode | ClientErrorCode;
  readonly retryAfter: number | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly idempotencyKey: string | undefined;

  constructor(init: TesseraErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.retryAfter = init.retryAfter;
    this.details = init.details;
    this.idempotencyKey = init.idempotencyKey;
  }
}

/** Whether `err` is a TesseraError, optionally with the given code (works across bundle copies, unlike instanceof). */
export function isTesseraError(err: unknown, code?: ErrorCode | ClientErrorCode): err is TesseraError {
  if (!(err instanceof Error) || err.name !== 'TesseraError') return false;
  return code === undefined || (err as TesseraError).code === code;
}
