/**
 * Owed refunds: a payment the provider took for places that were gone (late success, sold out) is
 * refunded through the provider outside any transaction, then recorded with a `refunded` order and
 * `order.refunded`. Never "paid, no ticket": a refund that fails stays owed and the sweeper retries it.
 */
import { LockMode } from '@mikro-orm/core';
import type { Logger } from 'pino';
import type { Clock } from '../../kernel/clock.ts';
import type { Services } from '../context.ts';
import { Order, Payment } from '../../storage/entities/purchase.ts';
import { createOrder, lockReservationOf } from './orders.ts';
import { emitPurchaseEvent } from './reservations.ts';
import { describeError } from '../../kernel/errors.ts';

/** What the money-moving services need beyond a transaction. */
export type SpineDeps = Pick<
  Services,
  'db' | 'payments' | 'ticketKeys' | 'mail' | 'catalogs' | 'orderMail' | 'metrics' | 'events' | 'publicUrl'
> & {
  clock: Clock;
  log: Logger;
};

/** Refunds one payment marked `refundDue`; returns true when it was refunded by this call. */
export async function refundOwedPayment(deps: SpineDeps, paymentId: string): Promise<boolean> {
  const owed = await deps.db.fork().findOne(Payment, { id: paymentId, refundDue: true });
  if (!owed?.providerReference) return false;
  const provider = deps.payments.provider(owed.provider);
  const refundReference = await provider.refund({
    reference: owed.providerReference,
    paymentId: owed.id,
    amountMinor: owed.amountMinor,
    now: deps.clock.now(),
  });
  const refunded = await deps.db.transaction(async (em) => {
    const payment = await em.findOne(Payment, { id: paymentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!payment?.refundDue) return false;
    const now = deps.clock.now();
    const r = await lockReservationOf(em, payment);
    payment.state = 'refunded';
    payment.refundDue = false;
    payment.refundReference = refundReference;
    payment.refundedAt = now;
    payment.updatedAt = now;
    if (await em.findOne(Order, { reservationId: r.id })) {
      deps.log.warn(
        { paymentId, reservationId: r.id },
        'refunded a second payment for an already completed reservation',
      );
      await em.flush();
      return true;
    }
    await createOrder(em, r, payment, 'refunded', now);
    await emitPurchaseEvent(em, 'order.refunded', r, now);
    return true;
  });
  if (refunded) {
    deps.metrics.orderRefunded('succeeded', 'late_payment');
    deps.events.record({
      event: 'refund',
      paymentId,
      amountMinor: owed.amountMinor,
      outcome: 'succeeded',
      cause: 'late_payment',
    });
  }
  return refunded;
}

/** Retries owed refunds (oldest first); errors are logged and the refund stays owed. */
export async function retryOwedRefunds(deps: SpineDeps, limit = 50): Promise<number> {
  const rows = await deps.db.execute<{ id: string }>(
    'select id from payments where refund_due order by updated_at limit ?',
    [limit],
  );
  let done = 0;
  for (const { id } of rows) {
    try {
      if (await refundOwedPayment(deps, id)) done++;
    } catch (err) {
      deps.log.error({ paymentId: id, err: describeError(err) }, 'refund failed; will retry');
    }
  }
  return done;
}
