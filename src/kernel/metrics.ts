/** The business metrics port: the domain reports what happened; composition binds it to Prometheus. */

/**
 * Business events as counts. The domain calls it after the transaction that made the event committed, so a rolled
 * back change is never counted; `src/http/business-metrics.ts` is the Prometheus binding (`/metrics`).
 */
export interface BusinessMetrics {
  /** A purchase completed: its order and tickets were written. */
  purchaseCompleted(): void;
  /** The payment provider refused a payment, by the error code the buyer's side got (`payment_declined`, ...). */
  paymentFailed(code: string): void;
  /** A refund a merchant asked for (`refund_order`), by the provider's first answer (`pending`: not reached). */
  orderRefunded(outcome: 'succeeded' | 'failed' | 'pending'): void;
  /** A reserve batch (one shared transaction) ran with `size` calls in it. */
  reserveBatch(size: number): void;
  /** The sweeper released `count` holds at their expiry. */
  holdsExpired(count: number): void;
}
