/**
 * Confirm: held → confirming → completed | back to held (decline) | pending (async provider).
 * Never holds a transaction across the provider call: tx1 locks the reservation, checks it and records
 * a pending payment; the provider is called; tx2 applies the answer. The pending payment row makes the
 * provider call happen at most once per attempt: a second confirm sees `confirming` and charges nothing.
 * When the provider cannot be reached the outcome is unknown (the charge may have happened): the payment
 * stays pending and the reservation `confirming`; the next confirm, or the sweeper's reconciliation, asks
 * the provider again about the SAME payment id (providers charge at most once per id), so money never
 * moves twice.
 * `payReservation` is the same attempt for other payment sources (purchase_initiate: a network credential
 * under a signed mandate), with the source's own authorization step inside tx1.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Shop, Tier, type ShopRow } from '../../storage/entities/catalog.ts';
import { Payment, Reservation, type ReservationRow } from '../../storage/entities/purchase.ts';
import { newId } from '../../storage/ids.ts';
import type { ChargeResult, NetworkCredential } from '../../payments/provider.ts';
import type { ToolContext } from '../context.ts';
import { describeError, ToolError } from '../../kernel/errors.ts';
import { sql } from '../../storage/database.ts';
import { applyPaymentFailure, applyPaymentSuccess, markPaymentPending } from './orders.ts';
import { authorizePurchase, ownershipFrom } from './purchase-access.ts';
import { loadPurchaseView, type PurchaseView } from './purchase-view.ts';
import { refundOwedPayment, type SpineDeps } from './refunds.ts';
import { requireReservation } from './reservations.ts';
import { checkScheme } from '../catalog/restrictions.ts';

/** While a payment is in flight the hold is extended to at least now + this (the payment deadline). */
export const PAYMENT_WINDOW_MS = 15 * 60 * 1000;

interface Attempt {
  paymentId: string;
  provider: string;
  paymentMethod: string;
  networkCredential?: NetworkCredential | undefined;
  amountMinor: number;
  currency: string;
}

/** What tx1 knows when the spend is authorized: the locked, held reservation, its shop and the new payment's id. */
export interface SpendContext {
  em: EntityManager;
  reservation: ReservationRow;
  shop: ShopRow;
  paymentId: string;
  now: Date;
}

/** One payment attempt: which reservation, what is charged, and who authorizes the spend. */
export interface PaymentPlan {
  /** Loads (or creates) the caller's reservation inside tx1, locked FOR UPDATE; `not_found` when not the caller's. */
  reservation: (em: EntityManager) => Promise<ReservationRow>;
  /** A payment-method token, or a network credential's reference when `networkCredential` is set. */
  paymentMethod: string;
  networkCredential?: NetworkCredential;
  /** Authorizes the spend inside tx1, after the state and scheme checks (default: authorizePurchase at `pay`). */
  authorize?: (spend: SpendContext) => Promise<void>;
}

/** Confirms a reservation with a payment method; returns the purchase view (payment pending ⇒ 202). */
export function confirmReservation(
  ctx: ToolContext,
  reservationId: string,
  paymentMethod: string,
): Promise<PurchaseView> {
  return payReservation(ctx, {
    reservation: (em) => requireReservation(em, ctx.principal, reservationId, { lock: true }),
    paymentMethod,
  });
}

/** Runs one payment attempt: tx1 (checks, authorization, pending payment), the provider call, tx2 (its answer). */
export async function payReservation(ctx: ToolContext, plan: PaymentPlan): Promise<PurchaseView> {
  const deps: SpineDeps = { ...ctx.services, clock: ctx.clock, log: ctx.log };
  const started = await deps.db.transaction((em) => beginAttempt(em, ctx, plan));
  if ('view' in started) return started.view;
  const { attempt } = started;
  let outcome: ChargeResult | undefined;
  try {
    outcome = await deps.payments.provider(attempt.provider).charge({ ...attempt, now: ctx.clock.now() });
  } catch (err) {
    ctx.log.error({ paymentId: attempt.paymentId, err: describeError(err) }, 'provider charge failed');
  }
  const applied = await deps.db.transaction((em) =>
    applyOutcome(em, attempt.paymentId, outcome, ctx.clock.now(), deps),
  );
  countOutcome(deps, applied, outcome);
  if (applied.refundDue) {
    await refundOwedPayment(deps, attempt.paymentId).catch((err: unknown) => {
      ctx.log.error({ paymentId: attempt.paymentId, err: describeError(err) }, 'refund failed; will retry');
    });
  }
  if (applied.view.order) deps.orderMail.kick(); // sent by the worker, not in this request
  if (applied.error) throw ctx.principal.kind === 'agent' ? declineForAgent(applied.error) : applied.error;
  return applied.view;
}

/** Counts a committed outcome (`BusinessMetrics`): a completed purchase, a payment the provider refused. */
function countOutcome(deps: SpineDeps, applied: { completed?: boolean }, outcome: ChargeResult | undefined): void {
  if (applied.completed) deps.metrics.purchaseCompleted();
  if (outcome?.status === 'failed') deps.metrics.paymentFailed(outcome.code);
}

/**
 * A decline as an agent must hear it: it pays with the card its buyer saved and cannot send another payment method,
 * so it is told to ask its buyer to update the card in the buyer pages and confirm again while the hold lasts.
 */
function declineForAgent(error: ToolError): ToolError {
  if (error.code !== 'payment_declined' && error.code !== 'insufficient_funds') return error;
  const why = error.code === 'insufficient_funds' ? ' for insufficient funds' : '';
  const message =
    `The card your buyer saved for you was declined${why}. Ask your buyer to update the card in the buyer pages, ` +
    'then call confirm again before the reservation expires (details.expiresAt).';
  return new ToolError(error.code, message, error.details);
}

/** A merchant-minted (bounded) session's `lang` (spec §2.3): the language of the order e-mails it pays for. */
function mintedLang(p: ToolContext['principal']): string | null {
  return p.kind === 'buyer' && p.mode === 'bounded' ? (p.lang ?? null) : null;
}

async function beginAttempt(
  em: EntityManager,
  ctx: ToolContext,
  plan: PaymentPlan,
): Promise<{ view: PurchaseView } | { attempt: Attempt }> {
  const now = ctx.clock.now();
  const r = await plan.reservation(em);
  const id = r.id;
  if (r.state === 'confirming') {
    const unknown = await unknownOutcomeAttempt(em, r.id);
    return unknown ? { attempt: unknown } : { view: await loadPurchaseView(em, r) };
  }
  if (r.state === 'completed') return { view: await loadPurchaseView(em, r) };
  if (r.state === 'released' && r.releaseReason !== 'expired') {
    throw new ToolError('reservation_released', undefined, { reservationId: id, releaseReason: r.releaseReason });
  }
  if (r.state === 'released' || r.expiresAt <= now) {
    throw new ToolError('reservation_expired', undefined, { reservationId: id, expiresAt: r.expiresAt.toISOString() });
  }
  const { paymentMethod, networkCredential } = plan;
  const shop = await em.findOneOrFail(Shop, { id: r.shopId });
  const provider = ctx.services.payments.provider(shop.paymentProvider);
  const method = networkCredential
    ? provider.describeNetworkCredential(networkCredential.credentialRef)
    : provider.describeMethod(paymentMethod);
  if (!method) {
    const message = networkCredential
      ? 'The shop’s payment provider cannot charge the mandate’s credentialRef.'
      : undefined;
    throw new ToolError('unknown_payment_method', message, { paymentMethod });
  }
  const tier = await em.findOneOrFail(Tier, { id: r.tierId });
  checkScheme(tier, method.scheme);
  const paymentId = newId('payment', now);
  if (plan.authorize) await plan.authorize({ em, reservation: r, shop, paymentId, now });
  else
    await authorizePurchase(
      { ...ctx, em },
      { shop, amountMinor: r.totalMinor, currency: r.currency, stage: 'pay', reservationId: r.id, paymentMethod },
    );
  const deadline = new Date(now.getTime() + PAYMENT_WINDOW_MS);
  r.state = 'confirming';
  r.paymentDeadline = deadline;
  r.expiresAt = r.expiresAt > deadline ? r.expiresAt : deadline;
  r.updatedAt = now;
  const payment = em.create(Payment, {
    id: paymentId,
    ...ownershipFrom(r),
    reservationId: r.id,
    attempt: (await em.count(Payment, { reservationId: r.id })) + 1,
    provider: provider.name,
    paymentMethod,
    scheme: method.scheme,
    amountMinor: r.totalMinor,
    currency: r.currency,
    state: 'pending',
    failureCode: null,
    providerReference: null,
    refundDue: false,
    refundReason: null,
    refundReference: null,
    createdAt: now,
    updatedAt: now,
    refundedAt: null,
    mailLang: mintedLang(ctx.principal),
  });
  await em.flush();
  const attempt: Attempt = {
    paymentId: payment.id,
    provider: provider.name,
    paymentMethod,
    networkCredential,
    amountMinor: r.totalMinor,
    currency: r.currency,
  };
  return { attempt };
}

async function applyOutcome(
  em: EntityManager,
  paymentId: string,
  outcome: ChargeResult | undefined,
  now: Date,
  deps: Pick<SpineDeps, 'ticketKeys'>,
): Promise<{ view: PurchaseView; error?: ToolError; refundDue?: boolean; completed?: boolean }> {
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
async function unknownOutcomeAttempt(em: EntityManager, reservationId: string): Promise<Attempt | undefined> {
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
    const applied = await deps.db.transaction((em) => applyOutcome(em, attempt.paymentId, outcome, now, deps));
    countOutcome(deps, applied, outcome);
    if (applied.refundDue) await refundOwedPayment(deps, attempt.paymentId).catch(() => undefined);
    resolved++;
  }
  return resolved;
}
