/**
 * A payment attempt's outcome applied (the second transaction of a confirm, and the sweeper's reconciliation of
 * outcomes the provider never gave): success completes the purchase, a decline returns the hold, an asynchronous
 * answer leaves it pending, no answer leaves the outcome unknown until the provider is asked again about the same
 * payment id (src/domain/purchase/confirmation.ts says why money never moves twice).
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Payment, Reservation } from '../../storage/entities/purchase.ts';
import type { ChargeResult, NetworkCredential } from '../../payments/provider.ts';
import { describeError, ToolError } from '../../kernel/errors.ts';
import { sql } from '../../storage/database.ts';
import { applyPaymentFailure, applyPaymentSuccess, markPaymentPending } from './orders.ts';
import { completePaidPurchase } from './paid-purchase.ts';
import type { PurchaseState } from '../../storage/completion-statements.ts';
import { loadPurchaseView, type OrderView, type PurchaseView } from './purchase-view.ts';
import { refundOwedPayment, type SpineDeps } from './refunds.ts';

/** What the provider is asked to charge: one payment id, charged at most once by the provider. */
export interface Attempt {
  paymentId: string;
  provider: string;
  paymentMethod: string;
  networkCredential?: NetworkCredential | undefined;
  amountMinor: number;
  currency: string;
}

/** An outcome as committed: the view, the error the caller hears, and what is owed or done after the commit. */
export interface AppliedOutcome {
  view: PurchaseView;
  error?: ToolError;
  refundDue?: boolean;
  completed?: boolean;
  /** Whether an order e-mail was queued (undefined: maybe, when an order exists). */
  mailQueued?: boolean;
}

/**
 * Counts a committed outcome (`BusinessMetrics`): a completed purchase, a payment the provider refused; a completed
 * purchase is also a `sale` business event.
 */
export function countOutcome(
  deps: SpineDeps,
  applied: { completed?: boolean; view?: PurchaseView },
  outcome: ChargeResult | undefined,
): void {
  if (applied.completed) {
    deps.metrics.purchaseCompleted();
    if (applied.view?.order) recordSale(deps, applied.view.order);
  }
  if (outcome?.status === 'failed') deps.metrics.paymentFailed(outcome.code);
}

/** The `sale` business event of an order just completed (after its commit). */
export function recordSale(deps: Pick<SpineDeps, 'events'>, order: OrderView): void {
  const { id: orderId, merchantId, totalMinor, currency } = order;
  deps.events.record({ event: 'sale', orderId, merchantId, totalMinor, currency });
}

/**
 * Applies and commits the provider's answer (`undefined`: none) to a payment attempt: a success in the common case in
 * one statement (paid-purchase.ts; `known`: the payment's state as the caller has just written it), any other answer or
 * case in a transaction (`applyOutcome`).
 */
export async function commitOutcome(
  deps: SpineDeps,
  paymentId: string,
  outcome: ChargeResult | undefined,
  now: Date,
  known?: PurchaseState,
): Promise<AppliedOutcome> {
  if (outcome?.status === 'succeeded') {
    const em = deps.db.fork();
    const paid = await completePaidPurchase(em, paymentId, outcome.reference, now, deps.ticketKeys, known);
    if (paid) return { view: paid.view, completed: true, mailQueued: paid.mailQueued };
  }
  return deps.db.transaction((em) => applyOutcome(em, paymentId, outcome, now, deps));
}

/** Applies the provider's answer (`undefined`: none) to a payment attempt, inside the caller's transaction. */
export async function applyOutcome(
  em: EntityManager,
  paymentId: string,
  outcome: ChargeResult | undefined,
  now: Date,
  deps: Pick<SpineDeps, 'ticketKeys'>,
): Promise<AppliedOutcome> {
  const payment = await em.findOneOrFail(Payment, { id: paymentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  let error: ToolError | undefined;
  let refundDue = false;
  let completed = false;
  // The view the last emitted event carried is the final state; it is loaded again only when nothing was emitted.
  let emitted: PurchaseView | undefined;
  if (!outcome) {
    error = new ToolError(
      'unavailable',
      'The payment provider could not be reached, so the outcome is unknown. Retry confirm: it asks the provider about the same payment and never charges twice.',
      { paymentId, outcome: 'unknown' },
      5,
    );
  } else if (outcome.status === 'succeeded') {
    ({ refundDue, view: emitted } = await applyPaymentSuccess(em, payment, outcome.reference, now, deps.ticketKeys));
    completed = emitted !== undefined && !refundDue;
  } else if (outcome.status === 'failed') {
    emitted = await applyPaymentFailure(
      em,
      payment,
      { code: outcome.code, reference: outcome.reference, mode: 'decline' },
      now,
    );
  } else {
    emitted = await markPaymentPending(em, payment, outcome.reference, now);
  }
  await em.flush();
  const r = await em.findOneOrFail(Reservation, { id: payment.reservationId });
  const view = emitted ?? (await loadPurchaseView(em, r));
  if (outcome?.status === 'failed') {
    error = new ToolError(outcome.code, undefined, {
      reservationId: r.id,
      paymentId,
      reservationState: r.state,
      expiresAt: r.expiresAt.toISOString(),
    });
  }
  return { view, refundDue, completed, ...(error ? { error } : {}) };
}

/**
 * The reservation's payment whose outcome is unknown (pending, and the provider never answered), as an
 * attempt to ask the provider again with the same payment id; undefined when there is none.
 */
export async function unknownOutcomeAttempt(em: EntityManager, reservationId: string): Promise<Attempt | undefined> {
  const [p] = await em.find(
    Payment,
    { reservationId, state: 'pending', providerReference: null },
    { orderBy: { attempt: 'desc' }, limit: 1 },
  );
  if (!p) return undefined;
  const [spent] = await sql<{ network: string; mandate_id: string }>(
    em,
    'select network, mandate_id from mandate_jtis where reference = ?',
    [p.id],
  );
  const networkCredential = spent
    ? { network: spent.network, credentialRef: p.paymentMethod, mandateId: spent.mandate_id }
    : undefined;
  return {
    paymentId: p.id,
    provider: p.provider,
    paymentMethod: p.paymentMethod,
    networkCredential,
    amountMinor: p.amountMinor,
    currency: p.currency,
  };
}

/** How long an unanswered charge waits before the sweeper asks the provider again. */
export const RECONCILE_AFTER_MS = 30_000;

/**
 * Asks the provider again about payments whose outcome is unknown (older than RECONCILE_AFTER_MS) and
 * applies each answer, so a purchase whose client never retries still completes, releases or is refunded.
 * Returns how many were resolved.
 */
export async function reconcileUnknownPayments(deps: SpineDeps, now: Date, limit = 50): Promise<number> {
  const rows = await deps.db.execute<{ reservation_id: string }>(
    `select reservation_id from payments where state = 'pending' and provider_reference is null and created_at < ?
      order by created_at limit ?`,
    [new Date(now.getTime() - RECONCILE_AFTER_MS), limit],
  );
  let resolved = 0;
  for (const { reservation_id } of rows) {
    const attempt = await deps.db.transaction((em) => unknownOutcomeAttempt(em, reservation_id));
    if (!attempt) continue;
    let outcome: ChargeResult | undefined;
    try {
      outcome = await deps.payments.provider(attempt.provider).charge({ ...attempt, now });
    } catch (err) {
      deps.log.warn(
        { paymentId: attempt.paymentId, err: describeError(err) },
        'provider still unreachable; will ask again',
      );
      continue;
    }
    const applied = await commitOutcome(deps, attempt.paymentId, outcome, now);
    countOutcome(deps, applied, outcome);
    if (applied.refundDue) await refundOwedPayment(deps, attempt.paymentId).catch(() => undefined);
    resolved++;
  }
  return resolved;
}
