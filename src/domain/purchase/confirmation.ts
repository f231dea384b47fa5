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
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ShopRow, TierRow } from '../../storage/entities/catalog.ts';
import type { PaymentRow, ReservationRow } from '../../storage/entities/purchase.ts';
import {
  insertPendingPayment,
  readReservationForPayment,
  readShopAndTier,
  type PendingPaymentWrite,
  type ReservationForPayment,
} from '../../storage/confirm-statements.ts';
import { MAX_PAYMENT_ATTEMPTS, tooManyPaymentAttempts } from './payment-attempts.ts';
import { newId } from '../../storage/ids.ts';
import type { ChargeResult, NetworkCredential } from '../../payments/provider.ts';
import type { ToolContext } from '../context.ts';
import { describeError, ToolError } from '../../kernel/errors.ts';
import { authorizePurchase, ownershipFrom, requireAccess } from './purchase-access.ts';
import { commitOutcome, countOutcome, unknownOutcomeAttempt, type Attempt } from './payment-outcome.ts';
import type { PurchaseState } from '../../storage/completion-statements.ts';
import { loadPurchaseView, type PurchaseView } from './purchase-view.ts';
import { refundOwedPayment, type SpineDeps } from './refunds.ts';
import { requireReservation } from './reservations.ts';
import { checkScheme } from '../catalog/restrictions.ts';
import { checkOtherLineSchemes } from './lines-reserve.ts';
import { settleAttendees } from './attendees.ts';
import type { AttendeeRow } from '../../storage/attendee-rows.ts';

/** While a payment is in flight the hold is extended to at least now + this (the payment deadline). */
export const PAYMENT_WINDOW_MS = 15 * 60 * 1000;

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
  /**
   * The reservation's id when it exists already: tx1 may then run as two statements without a transaction (see
   * `beginUnlocked`).
   */
  reservationId?: string;
  /** A payment-method token, or a network credential's reference when `networkCredential` is set. */
  paymentMethod: string;
  networkCredential?: NetworkCredential;
  /** Authorizes the spend inside tx1, after the state and scheme checks (default: authorizePurchase at `pay`). */
  authorize?: (spend: SpendContext) => Promise<void>;
  /** Attendee answers given with this payment (src/domain/purchase/attendees.ts). */
  attendees?: AttendeeRow[] | undefined;
  /** Commits the provider's answer (default `commitOutcome`; the confirm tool's calls: a group, confirm-groups.ts). */
  complete?: typeof commitOutcome;
  /** Runs the unlocked first step `first` (default: at once; the confirm tool's: in a group, first-step-groups.ts). */
  begin?: (first: (io?: FirstStepIo) => Promise<Started | undefined>) => Promise<Started | undefined>;
}

/** Where a first step run in a group reads and writes: the group's transaction and its shared statements. */
export interface FirstStepIo {
  em: EntityManager;
  read: (reservationId: string) => Promise<ReservationForPayment | undefined>;
  insert: (w: PendingPaymentWrite) => Promise<number | undefined>;
}

/** Confirms a reservation with a payment method; returns the purchase view (payment pending ⇒ 202). */
export function confirmReservation(
  ctx: ToolContext,
  reservationId: string,
  paymentMethod: string,
  attendees?: AttendeeRow[],
): Promise<PurchaseView> {
  return payReservation(ctx, {
    reservation: (em) => requireReservation(em, ctx.principal, reservationId, { lock: true }),
    reservationId,
    paymentMethod,
    attendees,
  });
}

/** Runs one payment attempt: tx1 (checks, authorization, pending payment), the provider call, tx2 (its answer). */
export async function payReservation(ctx: ToolContext, plan: PaymentPlan): Promise<PurchaseView> {
  const deps: SpineDeps = { ...ctx.services, clock: ctx.clock, log: ctx.log };
  const first = (io?: FirstStepIo) => beginUnlocked(deps, ctx, plan, io);
  const started =
    (await (plan.begin ? plan.begin(first) : first())) ??
    (await deps.db.transaction((em) => beginAttempt(em, ctx, plan)));
  if ('view' in started) return started.view;
  const { attempt } = started;
  let outcome: ChargeResult | undefined;
  try {
    outcome = await deps.payments.provider(attempt.provider).charge({ ...attempt, now: ctx.clock.now() });
  } catch (err) {
    ctx.log.error({ paymentId: attempt.paymentId, err: describeError(err) }, 'provider charge failed');
  }
  const complete = plan.complete ?? commitOutcome;
  const applied = await complete(deps, attempt.paymentId, outcome, ctx.clock.now(), started.known);
  countOutcome(deps, applied, outcome);
  if (applied.refundDue) {
    await refundOwedPayment(deps, attempt.paymentId).catch((err: unknown) => {
      ctx.log.error({ paymentId: attempt.paymentId, err: describeError(err) }, 'refund failed; will retry');
    });
  }
  // Sent by the worker, not in this request; kicked only when this confirm may have queued one.
  if (applied.mailQueued ?? applied.view.order) deps.orderMail.kick();
  if (applied.error) throw ctx.principal.kind === 'agent' ? declineForAgent(applied.error) : applied.error;
  return applied.view;
}

/**
 * A decline as an agent must hear it: it pays with the card its buyer saved and cannot send another payment method,
 * so it is told to ask its buyer to update the card in the buyer pages and confirm again while the hold lasts.
 */
export function declineForAgent(error: ToolError): ToolError {
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

/** tx1's result: a view to answer with, or an attempt to charge (`known`: the state it wrote, when it read it all). */
export type Started = { view: PurchaseView } | { attempt: Attempt; known?: PurchaseState };

/**
 * The common first step in two statements and no transaction: a held reservation, paid for by a caller whose
 * authorization writes nothing (not an agent, whose spend is recorded, nor a mandate's jti). One statement reads the
 * reservation with its shop and tier; the checks and the authorization run as under the lock; one statement moves it to
 * `confirming` and records the pending payment only if it is still held and unchanged since the read. Undefined
 * (nothing written) when any of that does not hold: `beginAttempt` then decides under the lock, as always. With `io`:
 * in a first-step group's transaction, through its shared statements (first-step-groups.ts).
 */
async function beginUnlocked(
  deps: SpineDeps,
  ctx: ToolContext,
  plan: PaymentPlan,
  io?: FirstStepIo,
): Promise<Started | undefined> {
  if (plan.reservationId === undefined || plan.authorize || ctx.principal.kind === 'agent') return undefined;
  const now = ctx.clock.now();
  const em = io?.em ?? deps.db.fork();
  const found = await (io ? io.read(plan.reservationId) : readReservationForPayment(em, plan.reservationId));
  if (!found?.shop || !found.tier) return undefined;
  const r = requireAccess(ctx.principal, found.reservation, 'reservation', plan.reservationId);
  if (r.state !== 'held' || r.expiresAt <= now) return undefined;
  const started = await startAttempt(em, ctx, plan, {
    reservation: r,
    shop: found.shop,
    tier: found.tier,
    now,
    unlocked: true,
    insert: io?.insert,
  });
  if (!started) return undefined;
  const { payment, reservation } = started.written;
  const context = { ...found.context, attempts: [...found.context.attempts, payment] };
  return { attempt: started.attempt, known: { payment, reservation, context } };
}

async function beginAttempt(em: EntityManager, ctx: ToolContext, plan: PaymentPlan): Promise<Started> {
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
  const read = await readShopAndTier(em, r.shopId, r.tierId);
  if (!read) throw new Error(`reservation ${r.id}: its shop or tier is gone`);
  const started = await startAttempt(em, ctx, plan, { reservation: r, ...read, now, unlocked: false });
  if (!started) throw tooManyPaymentAttempts(r.id); // locked and held: only the attempts' cap writes nothing
  return { attempt: started.attempt };
}

/**
 * A held reservation's payment attempt, from its method's check to the pending payment: undefined only when
 * `unlocked` and the reservation changed since it was read.
 */
async function startAttempt(
  em: EntityManager,
  ctx: ToolContext,
  plan: PaymentPlan,
  held: {
    reservation: ReservationRow;
    shop: ShopRow;
    tier: TierRow;
    now: Date;
    unlocked: boolean;
    insert?: FirstStepIo['insert'] | undefined;
  },
): Promise<{ attempt: Attempt; written: { payment: PaymentRow; reservation: ReservationRow } } | undefined> {
  const { reservation: r, shop, tier, now } = held;
  const { paymentMethod, networkCredential } = plan;
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
  checkScheme(tier, method.scheme);
  await checkOtherLineSchemes(em, r, method.scheme); // a multi-line purchase's other tiers (one tier: nothing read)
  await settleAttendees(em, r, [tier], plan.attendees); // nothing read or written when the tiers ask nothing
  const paymentId = newId('payment', now);
  if (plan.authorize) await plan.authorize({ em, reservation: r, shop, paymentId, now });
  else
    await authorizePurchase(
      { ...ctx, em },
      { shop, amountMinor: r.totalMinor, currency: r.currency, stage: 'pay', reservationId: r.id, paymentMethod },
    );
  const deadline = new Date(now.getTime() + PAYMENT_WINDOW_MS);
  // One statement: the reservation to `confirming` (the hold extended to the payment deadline) and the pending payment.
  const expiresAt = r.expiresAt > deadline ? r.expiresAt : deadline;
  const payment: Omit<PaymentRow, 'attempt'> = {
    id: paymentId,
    ...ownershipFrom(r),
    reservationId: r.id,
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
  };
  // One statement: the reservation to `confirming` (the hold extended to the payment deadline) and the pending payment.
  const write = held.insert ?? ((w: PendingPaymentWrite) => insertPendingPayment(em, w));
  const attempt = await write({
    reservationId: r.id,
    paymentDeadline: deadline,
    expiresAt,
    now,
    ...(held.unlocked ? { unchangedSince: r.updatedAt } : {}),
    maxAttempts: MAX_PAYMENT_ATTEMPTS,
    payment,
  });
  if (attempt === undefined) return undefined;
  return {
    attempt: {
      paymentId,
      provider: provider.name,
      paymentMethod,
      networkCredential,
      amountMinor: r.totalMinor,
      currency: r.currency,
    },
    written: {
      payment: { ...payment, attempt } as PaymentRow,
      reservation: {
        ...r,
        state: 'confirming',
        paymentDeadline: deadline,
        expiresAt,
        updatedAt: now,
      } as ReservationRow,
    },
  };
}
