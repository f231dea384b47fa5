/**
 * Refunds of a multi-line purchase's tickets (docs/purchase-spine.md, "Several lines in one purchase"): what some of
 * its tickets are worth, and how many places of each tier a refund gives back. An order of one tier reads nothing here.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Reservation, type OrderRow, type TicketRow } from '../../storage/entities/purchase.ts';
import { linesOf } from './lines.ts';

/**
 * What `chosen` tickets are worth when the order's tickets are of several tiers: their share of the total in proportion
 * to each ticket's line unit price plus the per-ticket fee (rounded down). Undefined for an order of one tier, whose
 * tickets are all worth the same share (the caller's rule, unchanged).
 */
export async function linesRefundPart(
  em: EntityManager,
  order: OrderRow,
  tickets: readonly TicketRow[],
  chosen: readonly TicketRow[],
): Promise<number | undefined> {
  if (tickets.every((t) => t.tierId === order.tierId)) return undefined;
  const r = await em.findOneOrFail(Reservation, { id: order.reservationId });
  const feePerTicket = r.quantity ? r.feesMinor / r.quantity : 0;
  const weight = new Map(linesOf(r).map((l) => [l.tierId, l.unitPriceMinor + feePerTicket]));
  const all = linesOf(r).reduce((n, l) => n + l.quantity * (l.unitPriceMinor + feePerTicket), 0);
  if (all <= 0) return 0;
  const part = chosen.reduce((n, t) => n + (weight.get(t.tierId) ?? 0), 0);
  return Math.floor((order.totalMinor * part) / all);
}

/** How many of `tickets` are of each tier. */
export function ticketsPerTier(tickets: readonly TicketRow[]): Map<string, number> {
  const per = new Map<string, number>();
  for (const t of tickets) per.set(t.tierId, (per.get(t.tierId) ?? 0) + 1);
  return per;
}
