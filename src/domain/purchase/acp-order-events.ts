/**
 * ACP's order webhooks (openapi.agentic_checkout_webhook.yaml) for orders placed through an ACP checkout session:
 * the order in ACP's `Order` shape, recorded in the outbox (`acp.order_create` / `acp.order_update`) in the same
 * transaction as the change, and delivered to the shop's agent-platform endpoint (`merchants/acp-webhook.ts`).
 * ACP asks for the full order in every event, not a delta. Orders not made through ACP emit nothing here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AcpCheckoutSession } from '../../storage/entities/acp.ts';
import { Event, Tier } from '../../storage/entities/catalog.ts';
import { Order, Refund, Reservation, Ticket, type OrderRow } from '../../storage/entities/purchase.ts';
import { emitEvent } from '../../webhooks/outbox.ts';
import { acpFulfilledLines, acpOrderLineItems, acpRefundLines } from './acp-order-lines.ts';
import { emitUcpOrderEvent } from './ucp-order-events.ts';

/** ACP's order status for ours: paid and delivered → `confirmed`; every ticket refunded → `canceled`. */
export const acpOrderStatus = (order: Pick<OrderRow, 'state'>): 'confirmed' | 'canceled' =>
  order.state === 'refunded' ? 'canceled' : 'confirmed';

/** The line item id of a session's tier (the same in the checkout session and the order). */
export const acpLineItemId = (tierId: string): string => `li_${tierId}`;

/** Where an order is read (`get_order`); made absolute with the server's base URL when sent. */
export const orderPermalinkPath = (orderId: string): string => `/v1/ticketing/orders/${orderId}`;

const ADJUSTMENT_STATUS = { pending: 'pending', succeeded: 'completed', failed: 'failed' } as const;

/**
 * The order as ACP's `Order` (`type: "order"`, line items with quantities, digital fulfillment, refunds as adjustments,
 * totals).
 */
export async function acpOrder(
  em: EntityManager,
  order: OrderRow,
  checkoutSessionId: string,
): Promise<Record<string, unknown>> {
  const [r, tier, event, tickets, refunds] = await Promise.all([
    em.findOneOrFail(Reservation, { id: order.reservationId }),
    em.findOne(Tier, { id: order.tierId }),
    em.findOne(Event, { id: order.eventId }),
    em.find(Ticket, { orderId: order.id }),
    em.find(Refund, { orderId: order.id }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
  ]);
  const lineId = acpLineItemId(order.tierId);
  const current = tickets.filter((t) => t.state === 'valid').length;
  const several = r.lines?.length ? r.lines : undefined; // a multi-line purchase: a line item per tier
  const subtotal = several ? several.reduce((n, l) => n + l.subtotalMinor, 0) : r.unitPriceMinor * order.quantity;
  const fees = order.totalMinor - subtotal + (r.discountMinor ?? 0); // a discount code's amount is not a fee
  const currency = order.currency.toLowerCase();
  return {
    type: 'order',
    id: order.id,
    checkout_session_id: checkoutSessionId,
    permalink_url: orderPermalinkPath(order.id),
    status: acpOrderStatus(order),
    line_items: several
      ? await acpOrderLineItems(em, several, tickets, event)
      : [
          {
            id: lineId,
            title: event && tier ? `${event.title} — ${tier.name}` : (tier?.name ?? order.tierId),
            product_id: order.tierId,
            // Tickets are delivered with the order; a refunded ticket leaves the order (ordered stays, current drops).
            quantity: { ordered: order.quantity, current, fulfilled: current },
            unit_price: r.unitPriceMinor,
            subtotal,
            status: current === 0 ? 'removed' : 'fulfilled',
          },
        ],
    fulfillments: [
      {
        id: `ful_${order.id}`,
        type: 'digital',
        status: 'delivered',
        line_items: several ? acpFulfilledLines(several) : [{ id: lineId, quantity: order.quantity }],
        description: 'Ticket codes issued with the order (get_order, and the buyer’s e-mail).',
      },
    ],
    adjustments: refunds.map((f) => ({
      id: f.id,
      type: 'refund',
      occurred_at: (f.settledAt ?? f.createdAt).toISOString(),
      status: ADJUSTMENT_STATUS[f.state],
      line_items: several ? acpRefundLines(f, tickets) : [{ id: lineId, quantity: f.ticketIds.length }],
      amount: f.amountMinor,
      currency,
      description: f.reason,
    })),
    totals: [
      { type: 'subtotal', display_text: 'Subtotal', amount: subtotal },
      ...(r.discountMinor ? [{ type: 'discount', display_text: 'Discount', amount: r.discountMinor }] : []),
      ...(fees > 0 ? [{ type: 'fee', display_text: 'Service fee', amount: fees }] : []),
      { type: 'total', display_text: 'Total', amount: order.totalMinor },
      ...(order.refundedMinor > 0
        ? [{ type: 'amount_refunded', display_text: 'Refunded', amount: order.refundedMinor }]
        : []),
    ],
  };
}

/**
 * Records ACP's `order_create` (the order was placed) or `order_update` (a refund settled or failed, the order was
 * canceled) for the reservation's order, when an ACP checkout session made it; inside the caller's transaction.
 */
export async function emitAcpOrderEvent(
  em: EntityManager,
  reservationId: string,
  kind: 'order_create' | 'order_update',
  now: Date,
): Promise<void> {
  const session = await em.findOne(AcpCheckoutSession, { reservationId });
  if (!session) return;
  // A UCP session (src/domain/ucp/checkout.ts) shares the row but is no ACP order: its platform's webhook instead.
  if (session.apiVersion.startsWith('ucp/')) return emitUcpOrderEvent(em, session.id, reservationId, kind, now);
  const order = await em.findOne(Order, { reservationId });
  if (!order) return;
  await emitEvent(em, {
    shopId: order.shopId,
    type: kind === 'order_create' ? 'acp.order_create' : 'acp.order_update',
    data: { type: kind, data: await acpOrder(em, order, session.id) },
    now,
  });
}
