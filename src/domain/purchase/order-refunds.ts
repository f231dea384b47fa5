/**
 * A merchant's refund of a whole order or some of its tickets, through the payment provider. Like confirm, it
 * never holds a transaction across the provider call:
 * 1. tx1 locks the order, picks the tickets (valid, not already being refunded), prices them and records a
 *    `pending` refund that claims them (`tickets.refund_id`): a concurrent refund of the same tickets is refused,
 *    and the amount never exceeds what is left of the payment (the orders CHECK constraint is the backstop).
 * 2. The provider refunds, idempotently per refund id.
 * 3. tx2 applies its answer: succeeded → tickets void, `refundedMinor` grows, places go back to the pool when the
 *    merchant asked (the reservation's `returnedCount` keeps available + held + sold = capacity); failed → the
 *    claim is dropped and the order stays paid; pending → a signed provider event settles it later.
 * Undoing step 1 when the provider refuses is step 3's failure branch; an unanswered call stays pending and the
 * sweeper asks the provider again about the same refund id.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RefundResult } from '../../payments/provider.ts';
import {
  Order,
  Payment,
  Refund,
  Reservation,
  Ticket,
  type OrderRow,
  type RefundRow,
} from '../../storage/entities/purchase.ts';
import { newId } from '../../storage/ids.ts';
import { emitEvent } from '../../webhooks/outbox.ts';
import { describeError, ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import type { ToolContext } from '../context.ts';
import { returnTierPlaces } from './lines.ts';
import { ticketsPerTier } from './lines-refund.ts';
import { priceRefund } from './refund-pricing.ts';
import { offerFreedPlacesOf } from './waiting-list-offers.ts';
import { requireAccess } from './purchase-access.ts';
import { loadOrderView, refundView, ticketView, type OrderView, type RefundView } from './purchase-view.ts';
import { emitPurchaseEvent } from './reservations.ts';
import { emitAcpOrderEvent } from './acp-order-events.ts';
import type { SpineDeps } from './refunds.ts';
import { enqueueOrderMail } from './order-mail.ts';
import { settleEventRefundItemOf } from './event-refund-items.ts';
import { returnDiscountUses } from './discount-uses.ts';

export interface RefundInput {
  orderId: string;
  /** The tickets to refund; all the order's refundable tickets when omitted. */
  ticketIds?: string[] | undefined;
  reason: string;
  /** Whether the refunded places go back on sale. */
  returnToPool: boolean;
}

export interface RefundOutcome {
  refund: RefundView;
  order: OrderView;
}

/** Refunds tickets of an order (see the module header); throws `refund_failed` when the provider refuses. */
export async function refundOrder(ctx: ToolContext, input: RefundInput): Promise<RefundOutcome> {
  const deps: SpineDeps = { ...ctx.services, clock: ctx.clock, log: ctx.log };
  const refund = await deps.db.transaction((em) => beginRefund(em, ctx.principal, input, ctx.clock.now()));
  const result = await askProvider(deps, refund);
  const outcome = await deps.db.transaction((em) => applyRefundResult(em, refund.id, result, ctx.clock.now()));
  const state = result ? outcome.refund.state : 'pending';
  deps.metrics.orderRefunded(state, 'merchant');
  deps.events.record({ event: 'refund', ...refundIds(refund), outcome: state, cause: 'merchant' });
  if (outcome.refund.state === 'succeeded') deps.orderMail.kick(); // sent by the worker, not in this request
  if (!result) {
    throw new ToolError(
      'unavailable',
      'The payment provider could not be reached; the refund stays pending and is asked about again (never refunded twice).',
      { refundId: refund.id, outcome: 'unknown' },
      5,
    );
  }
  if (outcome.refund.state === 'failed') {
    throw new ToolError('refund_failed', undefined, {
      refundId: refund.id,
      orderId: outcome.order.id,
      orderState: outcome.order.state,
      refundedMinor: outcome.order.refundedMinor,
    });
  }
  return outcome;
}

/** A refund's ids and amount, as its business-event line names it. */
export function refundIds(refund: RefundRow) {
  const { id: refundId, orderId, paymentId, amountMinor } = refund;
  return { refundId, orderId, paymentId, amountMinor };
}

/** Asks the provider to make (or report on) a refund, by its id; undefined when it cannot be reached. */
export async function askProvider(deps: SpineDeps, refund: RefundRow): Promise<RefundResult | undefined> {
  const payment = await deps.db.fork().findOneOrFail(Payment, { id: refund.paymentId });
  try {
    return await deps.payments.provider(payment.provider).refundPart({
      refundId: refund.id,
      paymentId: payment.id,
      reference: payment.providerReference!,
      amountMinor: refund.amountMinor,
      currency: refund.currency,
      now: deps.clock.now(),
    });
  } catch (err) {
    deps.log.error({ refundId: refund.id, err: describeError(err) }, 'provider refund failed');
    return undefined;
  }
}

async function beginRefund(em: EntityManager, principal: Principal, input: RefundInput, now: Date): Promise<RefundRow> {
  const order = requireAccess(
    principal,
    await em.findOne(Order, { id: input.orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE }),
    'order',
    input.orderId,
  );
  return claimRefund(em, order, input, now);
}

/**
 * Step 1 on an order the caller has locked (FOR UPDATE): picks (refund-pricing.ts) and claims the tickets and records
 * the pending refund.
 * Throws `order_fully_refunded` when nothing is left to refund.
 */
export async function claimRefund(
  em: EntityManager,
  order: OrderRow,
  input: RefundInput,
  now: Date,
): Promise<RefundRow> {
  const { chosen, amountMinor } = await priceRefund(em, order, input.ticketIds);
  const payment = await em.findOneOrFail(Payment, { id: order.paymentId });
  const refund = em.create(Refund, {
    id: newId('refund', now),
    shopId: order.shopId,
    organizationId: order.organizationId,
    ownerKey: order.ownerKey,
    buyerId: order.buyerId ?? null,
    orderId: order.id,
    paymentId: payment.id,
    ticketIds: chosen.map((t) => t.id),
    amountMinor,
    currency: order.currency,
    reason: input.reason,
    returnToPool: input.returnToPool,
    state: 'pending',
    failureCode: null,
    providerReference: null,
    createdAt: now,
    updatedAt: now,
    settledAt: null,
  });
  for (const t of chosen) t.refundId = refund.id;
  await em.flush();
  return refund;
}

/**
 * Applies the provider's answer to a pending refund (order row locked first, as in tx1); a refund already settled
 * is left as it is, so a duplicate answer or event changes nothing. `undefined`: no answer, the refund stays pending.
 */
export async function applyRefundResult(
  em: EntityManager,
  refundId: string,
  result: RefundResult | undefined,
  now: Date,
): Promise<RefundOutcome> {
  const first = await em.findOneOrFail(Refund, { id: refundId });
  const order = await em.findOneOrFail(Order, { id: first.orderId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const refund = await em.findOneOrFail(
    Refund,
    { id: refundId },
    { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
  );
  if (refund.state === 'pending' && result) {
    refund.providerReference ??= result.reference;
    refund.updatedAt = now;
    if (result.status === 'succeeded') await settleSuccess(em, order, refund, now);
    else if (result.status === 'failed') await settleFailure(em, order, refund, result.code, now);
    if (result.status !== 'pending') await settleEventRefundItemOf(em, refund.id, result.status, now);
  }
  await em.flush();
  return { refund: refundView(refund), order: await loadOrderView(em, order) };
}

async function settleSuccess(em: EntityManager, order: OrderRow, refund: RefundRow, now: Date): Promise<void> {
  const tickets = await em.find(Ticket, { id: { $in: refund.ticketIds } }, { orderBy: { id: 'asc' } });
  for (const t of tickets) {
    t.state = 'void';
    t.voidReason = 'refunded';
    t.voidedAt = now;
  }
  refund.state = 'succeeded';
  refund.settledAt = now;
  order.refundedMinor += refund.amountMinor;
  order.refundReason = refund.reason;
  const left = await em.count(Ticket, { orderId: order.id, state: 'valid', id: { $nin: refund.ticketIds } });
  order.state = left === 0 ? 'refunded' : 'partially_refunded';
  if (left === 0) order.refundedAt = now;
  const r = await em.findOneOrFail(Reservation, { id: order.reservationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (left === 0) await returnDiscountUses(em, [r], now, 'refund'); // a code's use, when the code gives it back
  if (refund.returnToPool) {
    await returnTierPlaces(em, r, ticketsPerTier(tickets)); // each ticket to its own tier's pool
    await offerFreedPlacesOf(em, r, now);
    r.returnedCount += tickets.length;
    r.updatedAt = now;
  }
  await enqueueOrderMail(em, 'refund', order, refund.id, now);
  await emitPurchaseEvent(em, 'order.refunded', r, now);
  await emitEvent(em, {
    shopId: order.shopId,
    type: 'ticket.voided',
    data: {
      orderId: order.id,
      eventId: order.eventId,
      refundId: refund.id,
      reason: 'refunded',
      tickets: tickets.map(ticketView),
    },
    now,
  });
}

async function settleFailure(
  em: EntityManager,
  order: OrderRow,
  refund: RefundRow,
  code: string,
  now: Date,
): Promise<void> {
  refund.state = 'failed';
  refund.failureCode = code;
  refund.settledAt = now;
  const tickets = await em.find(Ticket, { refundId: refund.id });
  for (const t of tickets) t.refundId = null;
  await em.flush();
  await emitEvent(em, {
    shopId: order.shopId,
    type: 'refund.failed',
    data: { refund: refundView(refund), order: await loadOrderView(em, order) },
    now,
  });
  await emitAcpOrderEvent(em, order.reservationId, 'order_update', now);
}

/** How long an unanswered refund waits before the sweeper asks the provider again. */
export const RETRY_REFUND_AFTER_MS = 30_000;

/**
 * Asks the provider again about refunds it never answered (same refund id: never refunded twice); returns how many got
 * an answer.
 */
export async function retryUnansweredRefunds(deps: SpineDeps, now: Date, limit = 50): Promise<number> {
  const rows = await deps.db.execute<{ id: string }>(
    `select id from refunds where state = 'pending' and provider_reference is null and created_at < ? order by created_at limit ?`,
    [new Date(now.getTime() - RETRY_REFUND_AFTER_MS), limit],
  );
  let answered = 0;
  for (const { id } of rows) {
    const refund = await deps.db.fork().findOneOrFail(Refund, { id });
    const result = await askProvider(deps, refund);
    if (!result) continue;
    await deps.db.transaction((em) => applyRefundResult(em, id, result, deps.clock.now()));
    deps.orderMail.kick();
    answered++;
  }
  return answered;
}
