/** What a refund of some of an order's tickets takes and pays back: the pricing half of order-refunds.ts, read-only. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Refund, Ticket, type OrderRow, type TicketRow } from '../../storage/entities/purchase.ts';
import { ToolError } from '../../kernel/errors.ts';
import { linesRefundPart } from './lines-refund.ts';

/**
 * Which tickets a refund of `ticketIds` (all the refundable ones when omitted) takes and what it pays back: each
 * ticket its share of the total, the refund taking the last free tickets the rest. Also what is left to refund after
 * it. Reads only; `order_fully_refunded`, `not_found` or `ticket_not_refundable` as the refund itself would answer.
 */
export async function priceRefund(
  em: EntityManager,
  order: OrderRow,
  ticketIds: readonly string[] | undefined,
): Promise<{ chosen: TicketRow[]; amountMinor: number; remainingMinor: number }> {
  const tickets = await em.find(Ticket, { orderId: order.id }, { orderBy: { id: 'asc' } });
  const free = tickets.filter((t) => t.state === 'valid' && !t.refundId);
  if (order.state === 'refunded' || free.length === 0) {
    throw new ToolError('order_fully_refunded', undefined, {
      orderId: order.id,
      state: order.state,
      refundedMinor: order.refundedMinor,
    });
  }
  let chosen = free;
  if (ticketIds) {
    const ids = [...new Set(ticketIds)];
    chosen = ids.map((id) => {
      const t = tickets.find((x) => x.id === id);
      if (!t)
        throw new ToolError('not_found', `No ticket ${id} in order ${order.id}.`, { ticketId: id, orderId: order.id });
      if (t.state !== 'valid' || t.refundId)
        throw new ToolError('ticket_not_refundable', undefined, {
          ticketId: id,
          state: t.state,
          refundId: t.refundId ?? null,
        });
      return t;
    });
  }
  const pending = await em.find(Refund, { orderId: order.id, state: 'pending' });
  const remaining = order.totalMinor - order.refundedMinor - pending.reduce((n, r) => n + r.amountMinor, 0);
  // Each ticket's share of the total (fees included); the refund that takes the last free tickets takes the rest, so a
  // whole order refunds exactly what was paid.
  const share = Math.floor(order.totalMinor / order.quantity);
  // Tickets of several tiers (a multi-line purchase) are worth their lines' prices: lines-refund.ts.
  const part = (await linesRefundPart(em, order, tickets, chosen)) ?? share * chosen.length;
  const amountMinor = chosen.length === free.length ? remaining : Math.min(remaining, part);
  return { chosen, amountMinor, remainingMinor: remaining - amountMinor };
}
