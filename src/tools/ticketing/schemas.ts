/** Wire schemas of the purchase spine (ticketing and payments): quotes, reservations, orders, tickets, payments. */
import { z } from 'zod';
import {
  ORDER_STATES,
  PAYMENT_STATES,
  REFUND_STATES,
  RELEASE_REASONS,
  RESERVATION_STATES,
  TICKET_STATES,
} from '../../domain/purchase/purchase-view.ts';
import { LinesOut } from './line-schemas.ts';
import { DiscountOut } from './discount-schemas.ts';
import { TaxOut } from './tax-schemas.ts';
import { AttendeeQuestionsOut, StoredAttendeesOut, TicketAttendeeOut } from './attendee-schemas.ts';

const Minor = z.number().int();
const Time = z.string().describe('RFC 3339 date-time.');

export const QuoteOut = z.object({
  quoteId: z.string().describe('Pass to `reserve` before `expiresAt`; usable once.'),
  merchantId: z.string(),
  eventId: z.string(),
  tierId: z.string(),
  poolId: z.string(),
  quantity: z.number().int(),
  country: z.string().nullable(),
  scheme: z.string().nullable(),
  unitPriceMinor: Minor,
  subtotalMinor: Minor.describe('unitPriceMinor × quantity.'),
  feesMinor: Minor.describe('The shop’s per-ticket fee × quantity.'),
  totalMinor: Minor.describe('subtotalMinor + feesMinor: what confirm charges.'),
  currency: z.string(),
  expiresAt: Time,
  createdAt: Time,
  lines: LinesOut,
  ...DiscountOut,
  tax: TaxOut.optional(),
  attendeeQuestions: AttendeeQuestionsOut,
});

export const ReservationOut = z.object({
  id: z.string(),
  merchantId: z.string(),
  eventId: z.string(),
  tierId: z.string(),
  poolId: z.string(),
  quoteId: z.string(),
  quantity: z.number().int(),
  unitPriceMinor: Minor,
  feesMinor: Minor,
  totalMinor: Minor,
  currency: z.string(),
  state: z.enum(RESERVATION_STATES).describe('held → confirming → completed | released.'),
  releaseReason: z.enum(RELEASE_REASONS).nullable(),
  expiresAt: Time.describe(
    'When the places go back unless confirmed: the hold expiry, or the payment deadline while confirming.',
  ),
  paymentDeadline: Time.nullable(),
  orderId: z.string().nullable(),
  createdAt: Time,
  updatedAt: Time,
  tax: TaxOut.optional().describe('get_reservation: the tax per rate, when the shop had tax settings at the quote.'),
  attendees: StoredAttendeesOut,
  lines: LinesOut,
  discountCodeId: DiscountOut.discountCodeId,
  discountMinor: DiscountOut.discountMinor,
});

export const PaymentOut = z.object({
  id: z.string(),
  merchantId: z.string(),
  reservationId: z.string(),
  attempt: z.number().int().describe('1 for the first payment attempt of the reservation, then 2, …'),
  provider: z.string(),
  paymentMethod: z.string(),
  scheme: z.string(),
  amountMinor: Minor,
  currency: z.string(),
  state: z.enum(PAYMENT_STATES).describe('pending → succeeded | failed | refunded.'),
  failureCode: z.string().nullable(),
  providerReference: z.string().nullable(),
  refundDue: z.boolean().describe('True while a refund through the provider is owed but not yet made.'),
  createdAt: Time,
  updatedAt: Time,
  refundedAt: Time.nullable(),
});

export const TicketOut = z.object({
  id: z.string(),
  code: z.string().describe('The unique, unguessable admission code (opaque; looked up online).'),
  signedCode: z
    .string()
    .nullable()
    .describe(
      'Signed code checked offline: compact JWS (EdDSA) over { tid, evt, tier, iat }; keys: get_ticket_keys. The QR.',
    ),
  eventId: z.string(),
  tierId: z.string(),
  state: z.enum(TICKET_STATES).describe('valid, or void (refunded: it no longer admits).'),
  voidReason: z.string().nullable(),
  voidedAt: Time.nullable(),
  checkedInAt: Time.nullable().describe('When the ticket was first admitted (the earliest scan).'),
  checkedInDevice: z.string().nullable(),
  createdAt: Time,
  ...TicketAttendeeOut,
});

export const RefundOut = z.object({
  id: z.string().describe('rfd_…'),
  orderId: z.string(),
  paymentId: z.string(),
  ticketIds: z.array(z.string()).describe('The tickets this refund voids.'),
  amountMinor: Minor,
  currency: z.string(),
  reason: z.string(),
  returnToPool: z.boolean().describe('Whether the refunded places went back on sale.'),
  state: z.enum(REFUND_STATES).describe('pending (the provider settles later) → succeeded | failed.'),
  failureCode: z.string().nullable(),
  providerReference: z.string().nullable(),
  createdAt: Time,
  settledAt: Time.nullable(),
});

export const OrderOut = z.object({
  id: z.string(),
  merchantId: z.string(),
  reservationId: z.string(),
  paymentId: z.string().describe('The payment that paid for the order.'),
  eventId: z.string(),
  tierId: z.string(),
  quantity: z.number().int(),
  totalMinor: Minor,
  refundedMinor: Minor.describe('What refunds have given back so far; never more than totalMinor.'),
  currency: z.string(),
  state: z.enum(ORDER_STATES).describe('completed → partially_refunded → refunded.'),
  refundReason: z
    .string()
    .nullable()
    .describe('Why a paid order was refunded, e.g. `sold_out` after a late payment, or the merchant’s reason.'),
  tickets: z.array(TicketOut),
  payments: z
    .array(PaymentOut)
    .describe('Every payment attempt of the reservation, oldest first (declined ones included).'),
  refunds: z.array(RefundOut).describe('The merchant’s refunds of this order, oldest first.'),
  createdAt: Time,
  refundedAt: Time.nullable().describe('When the order became fully refunded.'),
  tax: TaxOut.optional().describe('get_order: the tax per rate, when the shop had tax settings at the quote.'),
});

/** A reservation with its order and latest payment; confirm adds `pollUrl` and `next` while the payment is pending. */
export const PurchaseOut = z.object({
  reservation: ReservationOut,
  order: OrderOut.optional(),
  payment: PaymentOut.optional(),
  pollUrl: z
    .string()
    .optional()
    .describe('While the payment is pending: GET this (get_reservation) until the state changes.'),
  next: z.string().optional().describe('What to do next, in words.'),
});
