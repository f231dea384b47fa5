/**
 * Applying a payment's outcome to its reservation, inside the caller's transaction (payment row locked):
 * success completes the order with tickets (re-taking the places when the hold had expired meanwhile,
 * or owing a refund when they are gone); failure returns the hold (sync decline) or releases it (async).
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { releaseMandateJti } from '../../mandates/mandate-jtis.ts';
import {
  Order,
  Reservation,
  Ticket,
  type OrderRow,
  type PaymentRow,
  type ReservationRow,
  type TicketRow,
} from '../../storage/entities/purchase.ts';
import { newId, randomToken } from '../../storage/ids.ts';
import { enqueueOrderMail } from './order-mail.ts';
import { assignAttendees } from './attendees.ts';
import { signTicketCode } from '../../tickets/ticket-codes.ts';
import type { TicketKeys } from '../../tickets/ticket-keys.ts';
import { placeTiers, takeAll } from './lines.ts';
import { ownershipFrom } from './purchase-access.ts';
import type { PurchaseView } from './purchase-view.ts';
import { emitPurchaseEvent, releasePlaces } from './reservations.ts';

/** Locks and returns the reservation a payment is for. */
export async function lockReservationOf(em: EntityManager, payment: PaymentRow): Promise<ReservationRow> {
  return em.findOneOrFail(Reservation, { id: payment.reservationId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}

/**
 * Creates the order for a paid reservation; `completed` orders get one ticket per place, each with an unguessable
 * code and a signed code (the active ticket-signing key, `keys`) that scanners verify offline.
 */
export async function createOrder(
  em: EntityManager,
  r: ReservationRow,
  payment: PaymentRow,
  state: 'completed' | 'refunded',
  now: Date,
  keys?: TicketKeys,
): Promise<OrderRow> {
  return (await createOrderWithTickets(em, r, payment, state, now, keys)).order;
}

/** createOrder, also returning the tickets it created (none for a `refunded` order). */
async function createOrderWithTickets(
  em: EntityManager,
  r: ReservationRow,
  payment: PaymentRow,
  state: 'completed' | 'refunded',
  now: Date,
  keys?: TicketKeys,
): Promise<{ order: OrderRow; tickets: TicketRow[] }> {
  const tickets: TicketRow[] = [];
  const order = em.create(Order, {
    id: newId('order', now),
    ...ownershipFrom(r),
    reservationId: r.id,
    paymentId: payment.id,
    eventId: r.eventId,
    tierId: r.tierId,
    quantity: r.quantity,
    totalMinor: r.totalMinor,
    currency: r.currency,
    state,
    refundReason: state === 'refunded' ? (payment.refundReason ?? null) : null,
    refundedMinor: state === 'refunded' ? r.totalMinor : 0,
    createdAt: now,
    refundedAt: state === 'refunded' ? now : null,
  });
  if (state === 'completed') {
    const key = keys ? await keys.active(em) : undefined;
    const tierOfPlace = placeTiers(r); // each ticket keeps its line's tier
    for (let i = 0; i < r.quantity; i++) {
      const id = newId('ticket', now);
      const tierId = tierOfPlace[i] ?? r.tierId;
      const signedCode = key ? await signTicketCode(key, { id, eventId: r.eventId, tierId, createdAt: now }) : null;
      const ticket = em.create(Ticket, {
        id,
        orderId: order.id,
        eventId: r.eventId,
        tierId,
        code: randomToken(16),
        state: 'valid',
        signingKeyId: key?.kid ?? null,
        signedCode,
        createdAt: now,
      });
      tickets.push(ticket);
    }
    assignAttendees(r, tickets);
    await enqueueOrderMail(em, 'confirmation', order, null, now);
  }
  return { order, tickets };
}

/**
 * The provider says the money was taken. Completes the reservation (held or confirming: its places are
 * still taken; released: re-takes them with the same conditional update when still available). When
 * the places are gone, the payment is marked `refundDue` and the caller refunds it after commit.
 */
export async function applyPaymentSuccess(
  em: EntityManager,
  payment: PaymentRow,
  reference: string,
  now: Date,
  keys: TicketKeys,
): Promise<{ refundDue: boolean; view?: PurchaseView }> {
  if (payment.state === 'succeeded' || payment.state === 'refunded') return { refundDue: false };
  const r = await lockReservationOf(em, payment);
  payment.state = 'succeeded';
  payment.failureCode = null;
  payment.providerReference ??= reference;
  payment.updatedAt = now;
  const owe = async (reason: string) => {
    payment.refundDue = true;
    payment.refundReason = reason;
    await em.flush();
    return { refundDue: true };
  };
  if (r.state === 'completed') return owe('already_completed');
  if (r.state === 'released' && !(await takeAll(em, r))) return owe('sold_out'); // every line's places, or none
  r.state = 'completed';
  r.releaseReason = null;
  r.releasedAt = null;
  r.paymentDeadline = null;
  r.completedAt = now;
  r.updatedAt = now;
  const created = await createOrderWithTickets(em, r, payment, 'completed', now, keys);
  return { refundDue: false, view: await emitPurchaseEvent(em, 'order.completed', r, now, created) };
}

/**
 * The provider says no. `decline` (a synchronous answer): the reservation goes back to `held` until its
 * own hold expiry, so the buyer can retry with another method. `release` (an asynchronous event): the
 * places go back, once. Either way `payment.failed` is emitted, and a declined payment gives back the
 * signed-mandate jti it spent.
 */
export async function applyPaymentFailure(
  em: EntityManager,
  payment: PaymentRow,
  failure: { code: string; reference: string | null; mode: 'decline' | 'release' },
  now: Date,
): Promise<PurchaseView | undefined> {
  if (payment.state !== 'pending') return undefined;
  const r = await lockReservationOf(em, payment);
  payment.state = 'failed';
  payment.failureCode = failure.code;
  payment.providerReference ??= failure.reference;
  payment.updatedAt = now;
  // A provider's decline is definitive: a signed mandate spent on this payment is given back. (An unreachable
  // provider is not a failure: the payment stays pending and is asked about again, see confirmation.ts.)
  await releaseMandateJti(em, payment.id);
  if (r.state === 'confirming' && failure.mode === 'decline') {
    r.state = 'held';
    r.expiresAt = r.holdExpiresAt;
    r.paymentDeadline = null;
    r.updatedAt = now;
  } else if (r.state === 'confirming') {
    await releasePlaces(em, r, 'payment_failed', now);
    await emitPurchaseEvent(em, 'reservation.released', r, now);
  }
  return emitPurchaseEvent(em, 'payment.failed', r, now);
}

/** The provider will answer later: remember its reference and tell the merchant the order is pending. */
export async function markPaymentPending(
  em: EntityManager,
  payment: PaymentRow,
  reference: string,
  now: Date,
): Promise<PurchaseView | undefined> {
  payment.providerReference ??= reference;
  if (payment.state !== 'pending') return undefined;
  payment.updatedAt = now;
  const r = await lockReservationOf(em, payment);
  return emitPurchaseEvent(em, 'order.pending', r, now);
}
