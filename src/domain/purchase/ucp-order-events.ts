/**
 * UCP's order webhooks' body (order.json of 2026-04-08) for orders placed through a UCP checkout: the one line item
 * with its quantities, the tickets' digital delivery as a fulfillment event (digital goods have no destination, so no
 * expectation), refunds as signed adjustments, totals; the same full snapshot on create and on every update. Recorded
 * in the outbox (`ucp.order_create` / `ucp.order_update`) in the transaction of the change, addressed to the
 * platform's subscription (src/domain/ucp/order-webhooks.ts links it). Here beside ACP's, as the spine emits both.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Event, Tier } from '../../storage/entities/catalog.ts';
import { Order, Refund, Reservation, Ticket, type OrderRow } from '../../storage/entities/purchase.ts';
import { sql } from '../../storage/database.ts';
import { emitEvent } from '../../webhooks/outbox.ts';

/** The UCP version and capability an order says it is (domain/ucp/protocol.ts serves the same; a test checks). */
const UCP_ORDER_CAPABILITIES = { 'dev.ucp.shopping.order': [{ version: '2026-04-08' }] };

const ADJUSTMENT_STATUS = { pending: 'pending', succeeded: 'completed', failed: 'failed' } as const;

/** Where the order is read; a path, made absolute with the server's base URL when sent. */
export const ucpOrderPermalinkPath = (orderId: string): string => `/v1/ticketing/orders/${orderId}`;

/** The order as UCP's order entity, `permalink_url` a path (made absolute when sent). */
export async function ucpOrder(
  em: EntityManager,
  order: OrderRow,
  checkoutId: string,
): Promise<Record<string, unknown>> {
  const [r, tier, event, tickets, refunds] = await Promise.all([
    em.findOneOrFail(Reservation, { id: order.reservationId }),
    em.findOne(Tier, { id: order.tierId }),
    em.findOne(Event, { id: order.eventId }),
    em.find(Ticket, { orderId: order.id }),
    em.find(Refund, { orderId: order.id }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
  ]);
  // The checkout's line item id (ACP's, which a UCP session shares).
  const lineId = `li_${order.tierId}`;
  const current = tickets.filter((t) => t.state === 'valid').length;
  const subtotal = r.unitPriceMinor * order.quantity;
  const fees = order.totalMinor - subtotal;
  const title = event && tier ? `${event.title} — ${tier.name}` : (tier?.name ?? order.tierId);
  return {
    ucp: { version: '2026-04-08', capabilities: UCP_ORDER_CAPABILITIES },
    id: order.id,
    checkout_id: checkoutId,
    permalink_url: ucpOrderPermalinkPath(order.id),
    currency: order.currency.toUpperCase(),
    line_items: [
      {
        id: lineId,
        item: { id: order.tierId, title, price: r.unitPriceMinor },
        // Tickets are delivered with the order; a refunded ticket leaves it (original stays, total drops).
        quantity: { original: order.quantity, total: current, fulfilled: current },
        totals: [
          { type: 'subtotal', amount: r.unitPriceMinor * current },
          { type: 'total', amount: r.unitPriceMinor * current },
        ],
        status: current === 0 ? 'removed' : 'fulfilled',
      },
    ],
    fulfillment: {
      events: [
        {
          id: `ful_${order.id}`,
          occurred_at: order.createdAt.toISOString(),
          type: 'delivered',
          line_items: [{ id: lineId, quantity: order.quantity }],
          description: 'Ticket codes issued with the order (get_order, and the buyer’s e-mail).',
        },
      ],
    },
    adjustments: refunds.map((f) => ({
      id: f.id,
      type: 'refund',
      occurred_at: (f.settledAt ?? f.createdAt).toISOString(),
      status: ADJUSTMENT_STATUS[f.state],
      line_items: [{ id: lineId, quantity: -f.ticketIds.length }],
      totals: [{ type: 'total', amount: -f.amountMinor }],
      description: f.reason,
    })),
    totals: [
      { type: 'subtotal', display_text: 'Subtotal', amount: subtotal },
      ...(fees > 0 ? [{ type: 'fee', display_text: 'Service fee', amount: fees }] : []),
      { type: 'total', display_text: 'Total', amount: order.totalMinor },
      ...(order.refundedMinor > 0
        ? [{ type: 'refund', display_text: 'Refunded', amount: 0 - order.refundedMinor }]
        : []),
    ],
  };
}

/**
 * Records `ucp.order_create` or `ucp.order_update` with the full order for a UCP session's order, when its platform
 * named an order webhook; inside the caller's transaction.
 */
export async function emitUcpOrderEvent(
  em: EntityManager,
  sessionId: string,
  reservationId: string,
  kind: 'order_create' | 'order_update',
  now: Date,
): Promise<void> {
  const [link] = await sql<{ subscription_id: string }>(
    em,
    'select subscription_id from ucp_order_webhooks where session_id = ?',
    [sessionId],
  );
  if (!link) return;
  const order = await em.findOne(Order, { reservationId });
  if (!order) return;
  await emitEvent(em, {
    shopId: order.shopId,
    type: kind === 'order_create' ? 'ucp.order_create' : 'ucp.order_update',
    data: await ucpOrder(em, order, sessionId),
    now,
    subscriptionId: link.subscription_id,
  });
}
