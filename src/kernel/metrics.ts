/** The business metrics port: the domain reports what happened; composition binds it to Prometheus. */

/**
 * Business events as counts. The domain calls it after the transaction that made the event committed, so a rolled
 * back change is never counted; `src/http/business-metrics.ts` is the Prometheus binding (`/metrics`).
 */
/** Why a refund was made. */
export type RefundCause = 'merchant' | 'event_cancelled' | 'late_payment';

export interface BusinessMetrics {
  /** A purchase completed: its order and tickets were written. */
  purchaseCompleted(): void;
  /** The payment provider refused a payment, by the error code the buyer's side got (`payment_declined`, ...). */
  paymentFailed(code: string): void;
  /**
   * A refund, by the provider's first answer (`pending`: not reached or settling later) and its cause: a merchant's
   * `refund_order`, the refund job of a cancelled event, or a late payment whose places were gone (always succeeded:
   * it is counted once the provider refunded it).
   */
  orderRefunded(outcome: 'succeeded' | 'failed' | 'pending', cause: RefundCause): void;
  /** A reserve batch (one shared transaction) ran with `size` calls in it. */
  reserveBatch(size: number): void;
  /** The sweeper released `count` holds at their expiry. */
  holdsExpired(count: number): void;
}
