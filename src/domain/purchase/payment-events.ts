/**
 * Applying a verified provider event: each event id is applied at most once (provider_events has a
 * unique key), in one transaction with the payment row locked; an owed refund is made after commit. Refund
 * events settle a merchant's pending refund (order-refunds.ts).
 */
import { LockMode } from '@mikro-orm/core';
import type { ProviderEvent, ProviderName } from '../../payments/provider.ts';
import { sql } from '../../storage/database.ts';
import { Payment } from '../../storage/entities/purchase.ts';
import { applyRefundResult } from './order-refunds.ts';
import { applyPaymentFailure, applyPaymentSuccess } from './orders.ts';
import { refundOwedPayment, type SpineDeps } from './refunds.ts';
import { recordSale } from './payment-outcome.ts';
import { describeError } from '../../kernel/errors.ts';

export type EventOutcome = 'applied' | 'duplicate' | 'unknown_payment';

export async function applyProviderEvent(
  deps: SpineDeps,
  provider: ProviderName,
  event: ProviderEvent,
): Promise<EventOutcome> {
  const now = deps.clock.now();
  const result = await deps.db.transaction(async (em) => {
    const payment = await em.findOne(
      Payment,
      { id: event.paymentId, provider },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!payment || (payment.providerReference && payment.providerReference !== event.reference)) {
      return { outcome: 'unknown_payment' as const, refundDue: false };
    }
    const fresh = await sql(
      em,
      'insert into provider_events (provider, id, type, payment_id, received_at) values (?, ?, ?, ?, ?) on conflict do nothing returning id',
      [provider, event.id, event.type, payment.id, now],
    );
    if (fresh.length === 0) return { outcome: 'duplicate' as const, refundDue: false };
    if (event.type === 'refund.succeeded' || event.type === 'refund.failed') {
      if (!event.refundId) return { outcome: 'unknown_payment' as const, refundDue: false };
      const [known] = await sql(em, 'select id from refunds where id = ? and payment_id = ?', [
        event.refundId,
        payment.id,
      ]);
      if (!known) return { outcome: 'unknown_payment' as const, refundDue: false };
      const result =
        event.type === 'refund.succeeded'
          ? { status: 'succeeded' as const, reference: event.id }
          : { status: 'failed' as const, reference: event.id, code: 'refund_failed' as const };
      await applyRefundResult(em, event.refundId, result, now);
      return { outcome: 'applied' as const, refundDue: false };
    }
    if (event.type === 'payment.succeeded') {
      const { refundDue, view } = await applyPaymentSuccess(em, payment, event.reference, now, deps.ticketKeys);
      const completed = view !== undefined && !refundDue;
      return { outcome: 'applied' as const, refundDue, completed, order: completed ? view?.order : undefined };
    }
    const code = event.failureCode ?? 'payment_declined';
    const failed = await applyPaymentFailure(em, payment, { code, reference: event.reference, mode: 'release' }, now);
    return { outcome: 'applied' as const, refundDue: false, failedCode: failed ? code : undefined };
  });
  if ('completed' in result && result.completed) deps.metrics.purchaseCompleted();
  if ('order' in result && result.order) recordSale(deps, result.order);
  if ('failedCode' in result && result.failedCode) deps.metrics.paymentFailed(result.failedCode);
  if (result.outcome === 'unknown_payment')
    deps.log.warn({ provider, event: event.id }, 'provider event for an unknown payment ignored');
  if (result.refundDue) {
    await refundOwedPayment(deps, event.paymentId).catch((err: unknown) => {
      deps.log.error({ paymentId: event.paymentId, err: describeError(err) }, 'refund failed; will retry');
    });
  }
  if (result.outcome === 'applied') deps.orderMail.kick(); // sent by the worker, not in the provider's request
  return result.outcome;
}
