/** The purchase spine's rows: quotes, reservations (holds), payments, orders and their tickets. */
import { defineEntity, p } from '@mikro-orm/core';
import type { AnswerValue, AttendeeRow } from '../attendee-rows.ts';

export const RESERVATION_STATES = ['held', 'confirming', 'completed', 'released'] as const;
export type ReservationState = (typeof RESERVATION_STATES)[number];
export const RELEASE_REASONS = ['buyer', 'expired', 'payment_failed'] as const;
export type ReleaseReason = (typeof RELEASE_REASONS)[number];
export const PAYMENT_STATES = ['pending', 'succeeded', 'failed', 'refunded'] as const;
export type PaymentState = (typeof PAYMENT_STATES)[number];
export const ORDER_STATES = ['completed', 'partially_refunded', 'refunded'] as const;
export type OrderState = (typeof ORDER_STATES)[number];

/** Who a purchase object belongs to: the creating principal (`ownerKey`), its buyer, and the shop's organization. */
const ownership = {
  shopId: p.string(),
  organizationId: p.string(),
  ownerKey: p.string(),
  buyerId: p.string().nullable(),
};

/**
 * One line of a multi-line purchase (docs/purchase-spine.md, "Several lines in one purchase"): a tier of the event,
 * its pool, how many places and their price; on a hold, also the places refunds gave back to the pool.
 */
export interface PurchaseLineRow {
  tierId: string;
  poolId: string;
  quantity: number;
  unitPriceMinor: number;
  subtotalMinor: number;
  returnedCount?: number;
}

/** What was priced: the tier and pool, the quantity and the price breakdown (a quote's, locked into its hold). */
const pricedLine = {
  eventId: p.string(),
  tierId: p.string(),
  poolId: p.string(),
  quantity: p.integer(),
  unitPriceMinor: p.integer(),
  feesMinor: p.integer(),
  totalMinor: p.integer(),
  currency: p.string(),
  /** A multi-line purchase's lines (null for one tier: the row's own tier, pool and quantity are its one line). */
  lines: p.json<PurchaseLineRow[]>().nullable(),
  /** The discount code applied (dsc_…) and its amount off the subtotal (null without a code: docs/discount-codes.md). */
  discountCodeId: p.string().nullable().default(null),
  discountMinor: p.integer().nullable().default(null),
};

/** The priced-line fields of a quote or reservation, to copy a quote's price into its hold. */
export function pricedLineOf(row: {
  eventId: string;
  tierId: string;
  poolId: string;
  quantity: number;
  unitPriceMinor: number;
  feesMinor: number;
  totalMinor: number;
  currency: string;
  lines?: PurchaseLineRow[] | null;
  discountCodeId?: string | null;
  discountMinor?: number | null;
}) {
  const { eventId, tierId, poolId, quantity, unitPriceMinor, feesMinor, totalMinor, currency } = row;
  const lines = row.lines ? row.lines.map((l) => ({ ...l, returnedCount: 0 })) : null;
  const discount = { discountCodeId: row.discountCodeId ?? null, discountMinor: row.discountMinor ?? null };
  return { eventId, tierId, poolId, quantity, unitPriceMinor, feesMinor, totalMinor, currency, lines, ...discount };
}

/** A priced offer; holds nothing; single use (`reservationId` is set by the reserve that consumes it). */
export const Quote = defineEntity({
  name: 'Quote',
  tableName: 'quotes',
  properties: {
    id: p.string().primary(),
    ...ownership,
    ...pricedLine,
    country: p.string().nullable(),
    scheme: p.string().nullable(),
    /** Whose per-buyer uses of the discount code this purchase counts against (`buyer:…` or `email:…`). */
    discountBuyerKey: p.string().nullable().default(null),
    reservationId: p.string().nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime(),
  },
});
/** The discount fields are optional on a quote written whole (absent: no code; docs/discount-codes.md). */
type DiscountFields = 'discountCodeId' | 'discountMinor' | 'discountBuyerKey';
export type QuoteRow = Omit<InstanceType<typeof Quote.class>, DiscountFields> &
  Partial<Pick<InstanceType<typeof Quote.class>, DiscountFields>>;

/**
 * A hold on places, priced from its quote. `expiresAt` is when the places go back: the hold's own
 * expiry (`holdExpiresAt`) while held, the payment deadline while confirming.
 */
export const Reservation = defineEntity({
  name: 'Reservation',
  tableName: 'reservations',
  properties: {
    id: p.string().primary(),
    ...ownership,
    ...pricedLine,
    quoteId: p.string(),
    state: p.string().$type<ReservationState>(),
    releaseReason: p.string().$type<ReleaseReason>().nullable(),
    holdExpiresAt: p.datetime(),
    expiresAt: p.datetime(),
    paymentDeadline: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    completedAt: p.datetime().nullable(),
    releasedAt: p.datetime().nullable(),
    /** Places of a completed reservation given back to the pool by refunds (sold = quantity − returnedCount). */
    returnedCount: p.integer().default(0),
    /** The attendee names and answers given so far, per ticket place (null: none; src/storage/attendee-rows.ts). */
    attendees: p.json<AttendeeRow[]>().nullable(),
  },
});
export type ReservationRow = InstanceType<typeof Reservation.class>;

/** One attempt to pay for a reservation through a provider; at most one is pending per reservation. */
export const Payment = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  properties: {
    id: p.string().primary(),
    ...ownership,
    reservationId: p.string(),
    /** 1 for the reservation's first payment attempt, then 2, … (numbered under the reservation's row lock). */
    attempt: p.integer(),
    provider: p.string(),
    paymentMethod: p.string(),
    scheme: p.string(),
    amountMinor: p.integer(),
    currency: p.string(),
    state: p.string().$type<PaymentState>(),
    failureCode: p.string().nullable(),
    providerReference: p.string().nullable(),
    /** Money was taken but no places could be given: a refund through the provider is owed. */
    refundDue: p.boolean().default(false),
    refundReason: p.string().nullable(),
    refundReference: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    refundedAt: p.datetime().nullable(),
    /** The `lang` of the merchant-minted buyer session that paid: its order e-mails' language (null: the buyer's). */
    mailLang: p.string().nullable(),
  },
});
export type PaymentRow = InstanceType<typeof Payment.class>;

/** The outcome of a paid reservation: its tickets, or a refund when the places were gone. */
export const Order = defineEntity({
  name: 'Order',
  tableName: 'orders',
  properties: {
    id: p.string().primary(),
    ...ownership,
    reservationId: p.string(),
    paymentId: p.string(),
    eventId: p.string(),
    tierId: p.string(),
    quantity: p.integer(),
    totalMinor: p.integer(),
    currency: p.string(),
    state: p.string().$type<OrderState>(),
    refundReason: p.string().nullable(),
    /** What refunds have given back so far; never more than totalMinor (a CHECK constraint too). */
    refundedMinor: p.integer().default(0),
    createdAt: p.datetime(),
    refundedAt: p.datetime().nullable(),
  },
});
export type OrderRow = InstanceType<typeof Order.class>;

export const TICKET_STATES = ['valid', 'void'] as const;
export type TicketState = (typeof TICKET_STATES)[number];

/**
 * One admission: `code` is unique and unguessable (128 random bits); the signed code a scanner verifies is
 * derived from the ticket and the signing key it was issued under (`signingKeyId`). `refundId` is set while a
 * refund of the ticket is pending or once it succeeded.
 */
export const Ticket = defineEntity({
  name: 'Ticket',
  tableName: 'tickets',
  properties: {
    id: p.string().primary(),
    orderId: p.string(),
    eventId: p.string(),
    tierId: p.string(),
    code: p.string().unique(),
    state: p.string().$type<TicketState>().default('valid'),
    refundId: p.string().nullable(),
    voidReason: p.string().nullable(),
    voidedAt: p.datetime().nullable(),
    signingKeyId: p.string().nullable(),
    /** The compact JWS a scanner verifies offline (docs/tickets.md); null for tickets issued before signing existed. */
    signedCode: p.string().nullable(),
    checkedInAt: p.datetime().nullable(),
    checkedInDevice: p.string().nullable(),
    createdAt: p.datetime(),
    /** The ticket's attendee, from its purchase's answers (null: none given). */
    attendeeName: p.string().nullable(),
    attendeeAnswers: p.json<Record<string, AnswerValue>>().nullable(),
  },
});
export type TicketRow = InstanceType<typeof Ticket.class>;

export const REFUND_STATES = ['pending', 'succeeded', 'failed'] as const;
export type RefundState = (typeof REFUND_STATES)[number];

/** A merchant's refund of some or all of an order's tickets through the payment provider. */
export const Refund = defineEntity({
  name: 'Refund',
  tableName: 'refunds',
  properties: {
    id: p.string().primary(),
    ...ownership,
    orderId: p.string(),
    paymentId: p.string(),
    ticketIds: p.json<string[]>(),
    amountMinor: p.integer(),
    currency: p.string(),
    reason: p.string(),
    returnToPool: p.boolean(),
    state: p.string().$type<RefundState>(),
    failureCode: p.string().nullable(),
    providerReference: p.string().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    settledAt: p.datetime().nullable(),
  },
});
export type RefundRow = InstanceType<typeof Refund.class>;
