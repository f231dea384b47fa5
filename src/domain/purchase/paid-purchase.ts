/**
 * The common case of applying a provider's "succeeded", in one statement and no transaction of its own (two when the
 * purchase's state must be read first): a pending payment whose reservation still holds its places (held or
 * confirming), made outside ACP. The statement locks the payment and its reservation and writes the completion
 * (payment, reservation, order, tickets, the confirmation e-mail when the order gets one, the outbox event) only if
 * both are as they were read. Any other case, or a change since the read, answers undefined with nothing written, and
 * `applyPaymentSuccess` (orders.ts) decides under its locks: the rules are the same, written twice for speed.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { OrderRow, PaymentRow, ReservationRow, TicketRow } from '../../storage/entities/purchase.ts';
import { readPurchaseState, writeCompletion, type PurchaseState } from '../../storage/completion-statements.ts';
import type { CompletionWrite } from '../../storage/completion-statements.ts';
import { newId, randomToken } from '../../storage/ids.ts';
import { signTicketCode } from '../../tickets/ticket-codes.ts';
import type { TicketKeys } from '../../tickets/ticket-keys.ts';
import { queuesOrderMail } from './order-mail.ts';
import { assignAttendees } from './attendees.ts';
import { orderView, paymentView, reservationView, type PurchaseView } from './purchase-view.ts';

/** A completed purchase: its view (as the `order.completed` event carries it) and whether an e-mail was queued. */
export interface PaidPurchase {
  view: PurchaseView;
  mailQueued: boolean;
}

/**
 * Completes the purchase of a pending payment the provider says succeeded (`reference`), on `em` outside any
 * transaction; `known`: the payment's state as the caller has just written it (else it is read). Undefined, with
 * nothing written, when this is not the common case or the rows changed since.
 */
export async function completePaidPurchase(
  em: EntityManager,
  paymentId: string,
  reference: string,
  now: Date,
  keys: TicketKeys,
  known?: PurchaseState,
  /** Writes the completion (default: its own statement; a group of confirms writes its members' in one). */
  write: (w: CompletionWrite) => Promise<boolean> = (w) => writeCompletion(em, w),
): Promise<PaidPurchase | undefined> {
  const state = known ?? (await readPurchaseState(em, paymentId));
  if (!state || state.context.acpSession || !state.context.activeKid) return undefined;
  const { payment: before, reservation: held } = state;
  if (before.state !== 'pending' || (held.state !== 'held' && held.state !== 'confirming')) return undefined;
  if (held.lines?.length) return undefined; // several lines: tickets of several tiers, written by orders.ts
  const payment: PaymentRow = {
    ...before,
    state: 'succeeded',
    failureCode: null,
    providerReference: before.providerReference ?? reference,
    updatedAt: now,
  };
  const r: ReservationRow = {
    ...held,
    state: 'completed',
    releaseReason: null,
    releasedAt: null,
    paymentDeadline: null,
    completedAt: now,
    updatedAt: now,
  };
  const order = {
    id: newId('order', now),
    shopId: r.shopId,
    organizationId: r.organizationId,
    ownerKey: r.ownerKey,
    buyerId: r.buyerId ?? null,
    reservationId: r.id,
    paymentId: payment.id,
    eventId: r.eventId,
    tierId: r.tierId,
    quantity: r.quantity,
    totalMinor: r.totalMinor,
    currency: r.currency,
    state: 'completed',
    refundReason: null,
    refundedMinor: 0,
    createdAt: now,
    refundedAt: null,
  } as OrderRow;
  const key = await keys.byKid(state.context.activeKid, em);
  const tickets: TicketRow[] = [];
  for (let i = 0; i < r.quantity; i++) {
    const id = newId('ticket', now);
    const signedCode = await signTicketCode(key, { id, eventId: r.eventId, tierId: r.tierId, createdAt: now });
    tickets.push({
      id,
      orderId: order.id,
      eventId: r.eventId,
      tierId: r.tierId,
      code: randomToken(16),
      state: 'valid',
      refundId: null,
      voidReason: null,
      voidedAt: null,
      signingKeyId: key.kid,
      signedCode,
      checkedInAt: null,
      checkedInDevice: null,
      createdAt: now,
    } as TicketRow);
  }
  tickets.sort((a, b) => (a.id < b.id ? -1 : 1));
  assignAttendees(r, tickets);
  const attempts = state.context.attempts.map((a) => (a.id === payment.id ? payment : a));
  const view: PurchaseView = {
    reservation: reservationView(r, order.id),
    order: orderView(order, tickets, attempts),
    payment: paymentView(attempts[attempts.length - 1]!),
  };
  // Outside ACP (checked above) the order's e-mail address is its buyer's.
  const mailQueued = queuesOrderMail(order, null);
  const wrote = await write({
    payment,
    reservation: held,
    order,
    tickets,
    kid: key.kid,
    mailId: mailQueued ? newId('orderMail', now) : null,
    event: { id: newId('webhookEvent', now), type: 'order.completed', data: { ...view } },
    now,
  });
  return wrote ? { view, mailQueued } : undefined;
}
