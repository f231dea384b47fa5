/** Row → wire views of the purchase objects, shared by the tools and the webhook events they emit. */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  Order,
  Payment,
  Refund,
  Ticket,
  type OrderRow,
  type RefundRow,
  type PaymentRow,
  type QuoteRow,
  type ReservationRow,
  type TicketRow,
} from '../../storage/entities/purchase.ts';

import type { Principal } from '../../kernel/principal.ts';
import { iso, isoOrNull } from '../../kernel/wire.ts';
import { requireAccess } from './purchase-access.ts';
import { attendeeOut, attendeeQuestionsField } from './attendees.ts';
import { linesField, subtotalOf } from './lines.ts';
import { discountField } from './discount-view.ts';
import { taxField } from './tax-view.ts';
import type { TaxBreakdown } from './tax.ts';

/** The purchase states, re-exported for the wire schemas of the tools. */
export {
  ORDER_STATES,
  PAYMENT_STATES,
  REFUND_STATES,
  RELEASE_REASONS,
  RESERVATION_STATES,
  TICKET_STATES,
} from '../../storage/entities/purchase.ts';

export function quoteView(q: QuoteRow & { tax?: TaxBreakdown; discountCode?: string }) {
  return {
    quoteId: q.id,
    merchantId: q.shopId,
    eventId: q.eventId,
    tierId: q.tierId,
    poolId: q.poolId,
    quantity: q.quantity,
    country: q.country ?? null,
    scheme: q.scheme ?? null,
    unitPriceMinor: q.unitPriceMinor,
    subtotalMinor: q.lines?.length ? subtotalOf(q.lines) : q.unitPriceMinor * q.quantity,
    feesMinor: q.feesMinor,
    totalMinor: q.totalMinor,
    currency: q.currency,
    expiresAt: iso(q.expiresAt),
    createdAt: iso(q.createdAt),
    ...linesField(q),
    ...taxField(q),
    ...discountField(q),
    ...attendeeQuestionsField(q),
  };
}

export function reservationView(r: ReservationRow, orderId: string | null = null) {
  return {
    id: r.id,
    merchantId: r.shopId,
    eventId: r.eventId,
    tierId: r.tierId,
    poolId: r.poolId,
    quoteId: r.quoteId,
    quantity: r.quantity,
    unitPriceMinor: r.unitPriceMinor,
    feesMinor: r.feesMinor,
    totalMinor: r.totalMinor,
    currency: r.currency,
    state: r.state,
    releaseReason: r.releaseReason ?? null,
    expiresAt: iso(r.expiresAt),
    paymentDeadline: isoOrNull(r.paymentDeadline),
    orderId,
    createdAt: iso(r.createdAt),
    updatedAt: iso(r.updatedAt),
    ...linesField(r),
    ...discountField(r),
  };
}

export function paymentView(p: PaymentRow) {
  return {
    id: p.id,
    merchantId: p.shopId,
    reservationId: p.reservationId,
    attempt: p.attempt,
    provider: p.provider,
    paymentMethod: p.paymentMethod,
    scheme: p.scheme,
    amountMinor: p.amountMinor,
    currency: p.currency,
    state: p.state,
    failureCode: p.failureCode ?? null,
    providerReference: p.providerReference ?? null,
    refundDue: p.refundDue,
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
    refundedAt: isoOrNull(p.refundedAt),
  };
}

export function ticketView(t: TicketRow) {
  return {
    id: t.id,
    code: t.code,
    signedCode: t.signedCode ?? null,
    eventId: t.eventId,
    tierId: t.tierId,
    state: t.state,
    voidReason: t.voidReason ?? null,
    voidedAt: isoOrNull(t.voidedAt),
    checkedInAt: isoOrNull(t.checkedInAt),
    checkedInDevice: t.checkedInDevice ?? null,
    createdAt: iso(t.createdAt),
    ...attendeeOut(t),
  };
}

export function refundView(r: RefundRow) {
  return {
    id: r.id,
    orderId: r.orderId,
    paymentId: r.paymentId,
    ticketIds: [...r.ticketIds],
    amountMinor: r.amountMinor,
    currency: r.currency,
    reason: r.reason,
    returnToPool: r.returnToPool,
    state: r.state,
    failureCode: r.failureCode ?? null,
    providerReference: r.providerReference ?? null,
    createdAt: iso(r.createdAt),
    settledAt: isoOrNull(r.settledAt),
  };
}

/** An order with its tickets, the payment attempts of its reservation and its refunds (oldest first). */
export function orderView(
  o: OrderRow,
  tickets: readonly TicketRow[],
  payments: readonly PaymentRow[] = [],
  refunds: readonly RefundRow[] = [],
) {
  return {
    id: o.id,
    merchantId: o.shopId,
    reservationId: o.reservationId,
    paymentId: o.paymentId,
    eventId: o.eventId,
    tierId: o.tierId,
    quantity: o.quantity,
    totalMinor: o.totalMinor,
    refundedMinor: o.refundedMinor,
    currency: o.currency,
    state: o.state,
    refundReason: o.refundReason ?? null,
    tickets: tickets.map(ticketView),
    payments: payments.map(paymentView),
    refunds: refunds.map(refundView),
    createdAt: iso(o.createdAt),
    refundedAt: isoOrNull(o.refundedAt),
  };
}

export type ReservationView = ReturnType<typeof reservationView>;
export type PaymentView = ReturnType<typeof paymentView>;
export type OrderView = ReturnType<typeof orderView>;
export type RefundView = ReturnType<typeof refundView>;

/** A reservation with its order (when there is one) and its latest payment attempt (when there is one). */
export interface PurchaseView {
  reservation: ReservationView;
  order?: OrderView;
  payment?: PaymentView;
}

/**
 * Loads the order and the payment attempts of a reservation and builds the view (the latest attempt is its `payment`).
 * `created`: an order this transaction has just created with its tickets, so neither is read back and it has no
 * refunds yet (a confirm's view is then one read, its payment attempts).
 */
export async function loadPurchaseView(
  em: EntityManager,
  r: ReservationRow,
  created?: { order: OrderRow; tickets: readonly TicketRow[] },
): Promise<PurchaseView> {
  const order = created ? created.order : await em.findOne(Order, { reservationId: r.id });
  const payments = await em.find(Payment, { reservationId: r.id }, { orderBy: { attempt: 'asc' } });
  const view: PurchaseView = { reservation: reservationView(r, order?.id ?? null) };
  const byId = (a: TicketRow, b: TicketRow) => (a.id < b.id ? -1 : 1);
  if (created) view.order = orderView(created.order, [...created.tickets].sort(byId), payments);
  else if (order) view.order = await loadOrderView(em, order, payments);
  if (payments.length) view.payment = paymentView(payments[payments.length - 1]!);
  return view;
}

/**
 * loadPurchaseView for many reservations at once, in a fixed number of queries whatever their count
 * (the sweeper's events): the views come back in the order of `rs`.
 */
export async function loadPurchaseViews(em: EntityManager, rs: readonly ReservationRow[]): Promise<PurchaseView[]> {
  if (!rs.length) return [];
  const ids = rs.map((r) => r.id);
  const orders = await em.find(Order, { reservationId: { $in: ids } });
  const payments = await em.find(
    Payment,
    { reservationId: { $in: ids } },
    { orderBy: { reservationId: 'asc', attempt: 'asc' } },
  );
  const orderIds = orders.map((o) => o.id);
  const tickets = orderIds.length
    ? await em.find(Ticket, { orderId: { $in: orderIds } }, { orderBy: { id: 'asc' } })
    : [];
  const refunds = orderIds.length
    ? await em.find(Refund, { orderId: { $in: orderIds } }, { orderBy: { id: 'asc' } })
    : [];
  const group = <T, K>(rows: readonly T[], key: (row: T) => K) => {
    const map = new Map<K, T[]>();
    for (const row of rows) map.set(key(row), [...(map.get(key(row)) ?? []), row]);
    return map;
  };
  const paymentsOf = group(payments, (p) => p.reservationId);
  const ticketsOf = group(tickets, (t) => t.orderId);
  const refundsOf = group(refunds, (f) => f.orderId);
  const orderOf = new Map(orders.map((o) => [o.reservationId, o]));
  return rs.map((r) => {
    const order = orderOf.get(r.id);
    const attempts = paymentsOf.get(r.id) ?? [];
    const view: PurchaseView = { reservation: reservationView(r, order?.id ?? null) };
    if (order) view.order = orderView(order, ticketsOf.get(order.id) ?? [], attempts, refundsOf.get(order.id) ?? []);
    if (attempts.length) view.payment = paymentView(attempts[attempts.length - 1]!);
    return view;
  });
}

/** An order's view; `attempts`: its reservation's payments (oldest first) when the caller has read them already. */
export async function loadOrderView(
  em: EntityManager,
  order: OrderRow,
  attempts?: readonly PaymentRow[],
): Promise<OrderView> {
  const tickets = await em.find(Ticket, { orderId: order.id }, { orderBy: { id: 'asc' } });
  const payments =
    attempts ?? (await em.find(Payment, { reservationId: order.reservationId }, { orderBy: { attempt: 'asc' } }));
  const refunds = await em.find(Refund, { orderId: order.id }, { orderBy: { id: 'asc' } });
  return orderView(order, tickets, payments, refunds);
}

/** A payment the principal may see, as its view; otherwise `not_found`. */
export async function readPayment(em: EntityManager, principal: Principal, id: string): Promise<PaymentView> {
  return paymentView(requireAccess(principal, await em.findOne(Payment, { id }), 'payment', id));
}

/** An order the principal may see, with its tickets; otherwise `not_found`. */
export async function readOrder(em: EntityManager, principal: Principal, id: string): Promise<OrderView> {
  return loadOrderView(em, requireAccess(principal, await em.findOne(Order, { id }), 'order', id));
}
