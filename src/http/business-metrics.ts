/** The business metrics on `/metrics`: the Prometheus binding of the domain's `BusinessMetrics` port. */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { BusinessMetrics } from '../kernel/metrics.ts';

/**
 * Registers on `registry` `tessera_purchases_completed_total`, `tessera_payment_failures_total{code}`,
 * `tessera_order_refunds_total{outcome,cause}`, `tessera_hold_expiries_total` and the histogram `tessera_reserve_batch_size`,
 * and returns the port that increments them (counts of this process since it started).
 */
export function registerBusinessMetrics(registry: Registry): BusinessMetrics {
  const purchases = new Counter({
    name: 'tessera_purchases_completed_total',
    help: 'Purchases completed (order and tickets written) by this process.',
    registers: [registry],
  });
  const failures = new Counter({
    name: 'tessera_payment_failures_total',
    help: 'Payments the provider refused, by error code (payment_declined, insufficient_funds, ...).',
    labelNames: ['code'],
    registers: [registry],
  });
  const refunds = new Counter({
    name: 'tessera_order_refunds_total',
    help:
      "Refunds by the provider's first answer (succeeded, failed, pending) and cause (merchant: refund_order; " +
      'event_cancelled: the refund job of a cancelled event; late_payment: a late payment whose places were gone).',
    labelNames: ['outcome', 'cause'],
    registers: [registry],
  });
  const expiries = new Counter({
    name: 'tessera_hold_expiries_total',
    help: 'Holds the sweeper released at their expiry.',
    registers: [registry],
  });
  const batches = new Histogram({
    name: 'tessera_reserve_batch_size',
    help: 'Reserve calls per batch (one shared transaction; RESERVE_BATCH_MAX bounds it).',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128],
    registers: [registry],
  });
  return {
    purchaseCompleted: () => purchases.inc(),
    paymentFailed: (code) => failures.inc({ code }),
    orderRefunded: (outcome, cause) => refunds.inc({ outcome, cause }),
    reserveBatch: (size) => batches.observe(size),
    holdsExpired: (count) => {
      if (count > 0) expiries.inc(count);
    },
  };
}
