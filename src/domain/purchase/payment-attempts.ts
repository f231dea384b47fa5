/** The cap on a reservation's payment attempts: a declined card may be tried again, but not without end. */
import { ToolError } from '../../kernel/errors.ts';
import { MAX_PAYMENT_ATTEMPTS } from '../limits.ts';

export { MAX_PAYMENT_ATTEMPTS };

/**
 * The refusal of one more attempt on a held reservation that has had MAX_PAYMENT_ATTEMPTS already (the statement that
 * records a pending payment writes nothing then): the buyer releases it, or lets it expire, and reserves again.
 */
export function tooManyPaymentAttempts(reservationId: string): ToolError {
  return new ToolError('too_many_payment_attempts', undefined, { reservationId, limit: MAX_PAYMENT_ATTEMPTS });
}
