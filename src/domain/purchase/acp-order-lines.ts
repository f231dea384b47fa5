/**
 * ACP's order line items for a multi-line purchase (docs/purchase-spine.md, "Several lines in one purchase"): one per
 * tier, with its own ordered and current quantity, price and refunds. An order of one tier keeps its one line item
 * (acp-order-events.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Tier, type EventRow } from '../../storage/entities/catalog.ts';
import type { PurchaseLineRow, RefundRow, TicketRow } from '../../storage/entities/purchase.ts';

/** The line item id of a tier (the same in the checkout session and the order). */
const lineItemId = (tierId: string): string => `li_${tierId}`;

/** One ACP order line item per line: tickets still valid are `current`, a line with none left is `removed`. */
export async function acpOrderLineItems(
  em: EntityManager,
  lines: readonly PurchaseLineRow[],
  tickets: readonly TicketRow[],
  event: EventRow | null,
) {
  const tiers = await em.find(Tier, { id: { $in: lines.map((l) => l.tierId) } });
  return lines.map((l) => {
    const tier = tiers.find((t) => t.id === l.tierId);
    const current = tickets.filter((t) => t.tierId === l.tierId && t.state === 'valid').length;
    return {
      id: lineItemId(l.tierId),
      title: event && tier ? `${event.title} — ${tier.name}` : (tier?.name ?? l.tierId),
      product_id: l.tierId,
      quantity: { ordered: l.quantity, current, fulfilled: current },
      unit_price: l.unitPriceMinor,
      subtotal: l.subtotalMinor,
      status: current === 0 ? 'removed' : 'fulfilled',
    };
  });
}

/** Each line delivered in full with the order. */
export const acpFulfilledLines = (lines: readonly PurchaseLineRow[]) =>
  lines.map((l) => ({ id: lineItemId(l.tierId), quantity: l.quantity }));

/** A refund's tickets per line item. */
export function acpRefundLines(refund: RefundRow, tickets: readonly TicketRow[]) {
  const per = new Map<string, number>();
  for (const id of refund.ticketIds) {
    const tierId = tickets.find((t) => t.id === id)?.tierId;
    if (tierId) per.set(tierId, (per.get(tierId) ?? 0) + 1);
  }
  return [...per].map(([tierId, quantity]) => ({ id: lineItemId(tierId), quantity }));
}
