/**
 * A stored checkout session → the authoritative ACP CheckoutSession. The status is derived from the spine
 * reservation it runs over (held → ready_for_payment, confirming → complete_in_progress, completed, expired),
 * so a hold that expires or a payment that settles later shows up on the next retrieve.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Event, Pool, Shop, Tier } from '../../storage/entities/catalog.ts';
import { Order, Reservation, type ReservationRow } from '../../storage/entities/purchase.ts';
import type { AcpCheckoutSessionRow, AcpSessionStatus } from '../../storage/entities/acp.ts';
import { ASYNC_DECLINED, CANCELED, HOLD_EXPIRED, HOLD_RELEASED, PAYMENT_PENDING } from './messages.ts';
import type { AcpCheckoutSessionOut, AcpMessage } from './session-schema.ts';
import { ACP_VERSION } from './versions.ts';
import { sessionLineItems } from './session-lines.ts';
import { discountsView } from './session-discounts.ts';
import { acpLineItemId, acpOrderStatus, orderPermalinkPath } from '../purchase/acp-order-events.ts';

/** The one payment handler offered: a card delegated through the sandbox vault (delegate_payment). */
export const CARD_HANDLER_ID = 'card_tokenized';
/** Tickets are delivered digitally with the order; the one fulfillment option. */
export const DIGITAL_OPTION_ID = 'digital_tickets';
const DEFAULT_BRANDS = ['visa', 'mastercard', 'amex'];

export const lineItemId = (s: AcpCheckoutSessionRow): string => acpLineItemId(s.tierId);

/** The status a session is in now, from its own terminal marks and its reservation. */
export function statusOf(s: AcpCheckoutSessionRow, r: ReservationRow | null, now: Date): AcpSessionStatus {
  if (s.canceledAt) return 'canceled';
  if (!r) return 'not_ready_for_payment';
  switch (r.state) {
    case 'completed':
      return 'completed';
    case 'confirming':
      return 'complete_in_progress';
    case 'held':
      return r.expiresAt <= now ? 'expired' : 'ready_for_payment';
    case 'released':
      return r.releaseReason === 'expired' ? 'expired' : 'not_ready_for_payment';
  }
}

export async function reservationOf(em: EntityManager, s: AcpCheckoutSessionRow): Promise<ReservationRow | null> {
  return s.reservationId ? em.findOne(Reservation, { id: s.reservationId }) : null;
}

function derivedMessages(status: AcpSessionStatus, r: ReservationRow | null): AcpMessage[] {
  if (status === 'expired') return [HOLD_EXPIRED];
  if (status === 'complete_in_progress') return [PAYMENT_PENDING];
  if (status === 'canceled') return [CANCELED];
  if (r?.state === 'released' && r.releaseReason === 'payment_failed') return [ASYNC_DECLINED];
  if (r?.state === 'released') return [HOLD_RELEASED];
  return [];
}

const total = (
  type: 'items_base_amount' | 'items_discount' | 'subtotal' | 'fee' | 'total',
  display_text: string,
  amount: number,
) => ({
  type,
  display_text,
  amount,
});

/** Builds the ACP session for `s` as of `now`. */
export async function sessionView(
  em: EntityManager,
  s: AcpCheckoutSessionRow,
  publicUrl: string,
  now: Date,
): Promise<AcpCheckoutSessionOut> {
  const tier = await em.findOneOrFail(Tier, { id: s.tierId });
  const [shop, event, pool] = await Promise.all([
    em.findOneOrFail(Shop, { id: s.shopId }),
    em.findOne(Event, { id: tier.eventId }),
    em.findOne(Pool, { id: tier.poolId }),
  ]);
  const r = await reservationOf(em, s);
  const status = statusOf(s, r, now);
  const priced = r && r.quantity === s.quantity ? r : null;
  const unit = priced ? priced.unitPriceMinor : tier.priceMinor;
  // Several line items: each its own tier and price (session-lines.ts); fees per ticket over all of them.
  const several = s.lines?.length ? await sessionLineItems(em, { ...s, lines: s.lines }, r) : undefined;
  const places = s.lines?.length ? s.lines.reduce((n, l) => n + l.quantity, 0) : s.quantity;
  const base = several ? several.base : unit * s.quantity;
  const fees = several
    ? r?.lines && r.quantity === places
      ? r.feesMinor
      : shop.feePerTicketMinor * places
    : priced
      ? priced.feesMinor
      : shop.feePerTicketMinor * s.quantity;
  const liId = lineItemId(s);
  // A discount code's amount, when the hold has one (session-discounts.ts): off the subtotal, before the fees.
  const coded = several ? (r?.lines && r.quantity === places ? r : null) : priced;
  const off = coded?.discountMinor ?? 0;
  const order = r?.state === 'completed' ? await em.findOne(Order, { reservationId: r.id }) : null;
  const stored = status === 'not_ready_for_payment' || status === 'ready_for_payment' ? s.messages : [];
  const view: AcpCheckoutSessionOut = {
    id: s.id,
    protocol: { version: ACP_VERSION },
    capabilities: {
      payment: {
        handlers: [
          {
            id: CARD_HANDLER_ID,
            name: 'dev.acp.tokenized.card',
            display_name: 'Card',
            version: '2026-01-22',
            spec: 'https://acp.dev/handlers/tokenized.card',
            requires_delegate_payment: true,
            requires_pci_compliance: false,
            psp: 'tessera_sandbox',
            config_schema: 'https://acp.dev/schemas/handlers/tokenized.card/config.json',
            instrument_schemas: ['https://acp.dev/schemas/handlers/tokenized.card/instrument.json'],
            config: {
              merchant_id: s.shopId,
              psp: 'tessera_sandbox',
              accepted_brands: tier.allowedSchemes.length ? [...tier.allowedSchemes] : DEFAULT_BRANDS,
              supports_3ds: false,
              environment: 'sandbox',
              delegate_payment_url: `${publicUrl}/agentic_commerce/delegate_payment`,
            },
          },
        ],
      },
      interventions: { supported: [], required: [], enforcement: 'optional' },
    },
    status,
    currency: s.currency.toLowerCase(),
    line_items: several?.items ?? [
      {
        id: liId,
        item: { id: s.tierId },
        quantity: s.quantity,
        name: event ? `${event.title} — ${tier.name}` : tier.name,
        unit_amount: unit,
        ...(pool ? { available_quantity: pool.availableCount } : {}),
        ...(tier.maxQtyPerPurchase != null ? { max_quantity_per_order: tier.maxQtyPerPurchase } : {}),
        totals: [
          total('items_base_amount', 'Tickets', base),
          ...(off ? [total('items_discount', 'Discount', off)] : []),
          total('subtotal', 'Subtotal', base - off),
          total('total', 'Total', base - off),
        ],
      },
    ],
    fulfillment_options: [
      {
        type: 'digital',
        id: DIGITAL_OPTION_ID,
        title: 'Digital tickets',
        description: 'Ticket codes are issued with the order.',
        totals: [total('total', 'Delivery', 0)],
      },
    ],
    selected_fulfillment_options: [
      { type: 'digital', option_id: DIGITAL_OPTION_ID, item_ids: several ? several.items.map((i) => i.id) : [liId] },
    ],
    totals: [
      total('items_base_amount', 'Tickets', base),
      ...(off ? [total('items_discount', 'Discount', off)] : []),
      total('subtotal', 'Subtotal', base - off),
      ...(fees > 0 ? [{ ...total('fee', 'Service fee', fees), description: 'Per-ticket service fee' }] : []),
      total('total', 'Total', base - off + fees),
    ],
    messages: [...(stored as AcpMessage[]), ...derivedMessages(status, r)],
    links: [],
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
  if (r && (status === 'ready_for_payment' || status === 'complete_in_progress'))
    view.expires_at = r.expiresAt.toISOString();
  if (s.buyer) view.buyer = s.buyer as AcpCheckoutSessionOut['buyer'];
  if (s.fulfillmentDetails)
    view.fulfillment_details = s.fulfillmentDetails as AcpCheckoutSessionOut['fulfillment_details'];
  if (s.locale) view.locale = s.locale;
  if (s.timezone) view.timezone = s.timezone;
  if (s.metadata) view.metadata = s.metadata;
  const discounts = await discountsView(em, coded, s.messages as AcpMessage[]);
  if (discounts) view.discounts = discounts;
  if (order) {
    view.order = {
      type: 'order',
      id: order.id,
      checkout_session_id: s.id,
      permalink_url: `${publicUrl}${orderPermalinkPath(order.id)}`,
      status: acpOrderStatus(order),
    };
  }
  return view;
}
