/**
 * Listing orders, per principal: a merchant (API key, console user) sees its organization's orders; a buyer its own
 * across shops (a bounded session: in its shop only); an agent the ones it made. The filters (shop, event, state,
 * creation time) only narrow that scope, they never replace it (issue #32). Newest first, with a cursor (the last order
 * id of the page: ids sort by time).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FilterQuery } from '@mikro-orm/core';
import { Order, Payment, Refund, Ticket, type OrderRow } from '../../storage/entities/purchase.ts';
import type { OrderState } from '../../storage/entities/purchase.ts';
import type { Principal } from '../../kernel/principal.ts';
import { ToolError } from '../../kernel/errors.ts';
import { requireShop, shopNotFound } from '../catalog/access.ts';
import { requireMerchantEvent } from './event-access.ts';
import { orderView, type OrderView } from './purchase-view.ts';

export interface OrderFilter {
  merchantId?: string | undefined;
  eventId?: string | undefined;
  state?: OrderState | undefined;
  /** Orders created at or after this instant. */
  createdFrom?: Date | undefined;
  /** Orders created before this instant. */
  createdBefore?: Date | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** Who the principal may list orders of, as a filter (never another organization's or buyer's). */
function scopeOf(principal: Principal): Record<string, unknown> {
  switch (principal.kind) {
    case 'api_key':
    case 'console_user':
      return { organizationId: principal.organizationId };
    case 'buyer':
      // A bounded session is for its shop only (one without a shop, which is never minted, lists nothing).
      return principal.mode === 'bounded'
        ? { buyerId: principal.buyerId, shopId: principal.merchantId ?? { $in: [] } }
        : { buyerId: principal.buyerId };
    case 'agent':
      return { ownerKey: `agent:${principal.agentId}` };
    case 'staff':
    case 'anonymous':
      throw new ToolError('forbidden');
  }
}

/** The caller's filter as a condition of its own (combined with the scope by `$and`, never merged into it). */
function filterOf(f: OrderFilter): Record<string, unknown> {
  const w: Record<string, unknown> = {};
  if (f.merchantId) w.shopId = f.merchantId;
  if (f.eventId) w.eventId = f.eventId;
  if (f.state) w.state = f.state;
  const created: Record<string, Date> = {};
  if (f.createdFrom) created.$gte = f.createdFrom;
  if (f.createdBefore) created.$lt = f.createdBefore;
  if (Object.keys(created).length) w.createdAt = created;
  if (f.cursor) w.id = { $lt: f.cursor };
  return w;
}

/**
 * A shop or event the filter names that the caller cannot see answers 404, as everywhere: a merchant's outside its
 * organization, a bounded session's other than its own shop. Buyers and agents otherwise just get none of theirs there.
 */
async function requireNamedVisible(em: EntityManager, principal: Principal, f: OrderFilter): Promise<void> {
  if (principal.kind === 'api_key' || principal.kind === 'console_user') {
    if (f.merchantId) await requireShop(em, principal, f.merchantId);
    if (f.eventId) await requireMerchantEvent(em, principal, f.eventId);
  } else if (principal.kind === 'buyer' && principal.mode === 'bounded') {
    if (f.merchantId && f.merchantId !== principal.merchantId) throw shopNotFound(f.merchantId);
  }
}

/** A page of orders (each with its tickets, payments and refunds) and the cursor of the next page when there is one. */
export async function listOrders(
  em: EntityManager,
  principal: Principal,
  f: OrderFilter,
): Promise<{ orders: OrderView[]; nextCursor?: string }> {
  await requireNamedVisible(em, principal, f);
  // The filter is ANDed with the caller's scope: whatever it names, it can only narrow what the caller may see.
  const w = { $and: [scopeOf(principal), filterOf(f)] } as FilterQuery<OrderRow>;
  const rows = await em.find(Order, w, { orderBy: { id: 'desc' }, limit: f.limit + 1 });
  const page = rows.slice(0, f.limit);
  const ids = page.map((o) => o.id);
  const [tickets, payments, refunds] = await Promise.all([
    ids.length ? em.find(Ticket, { orderId: { $in: ids } }, { orderBy: { id: 'asc' } }) : [],
    ids.length
      ? em.find(Payment, { reservationId: { $in: page.map((o) => o.reservationId) } }, { orderBy: { attempt: 'asc' } })
      : [],
    ids.length ? em.find(Refund, { orderId: { $in: ids } }, { orderBy: { id: 'asc' } }) : [],
  ]);
  const orders = page.map((o) =>
    orderView(
      o,
      tickets.filter((t) => t.orderId === o.id),
      payments.filter((p) => p.reservationId === o.reservationId),
      refunds.filter((r) => r.orderId === o.id),
    ),
  );
  return rows.length > f.limit ? { orders, nextCursor: page.at(-1)!.id } : { orders };
}
