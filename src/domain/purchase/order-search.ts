/**
 * The merchant's order search (the console's Orders view): its organization's orders, searched by order id, ticket id
 * or buyer e-mail, filtered by shop, event, state and creation time, sorted by creation or total, in cursor pages. Each
 * row carries the buyer's e-mail and name, which only merchant principals read (list_orders and get_order, which
 * buyers and agents call too, carry none).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import { iso } from '../../kernel/wire.ts';
import { sql } from '../../storage/database.ts';
import type { OrderState } from '../../storage/entities/purchase.ts';
import { requireShop } from '../catalog/access.ts';
import { requireMerchantEvent } from './event-access.ts';
import { ORDER_LINES_COLUMN, orderLinesField, type OrderLine } from './order-lines.ts';

/** The buyer of an order as a merchant sees it: its address and, when an ACP checkout gave one, its name. */
export interface BuyerContact {
  email: string;
  name: string | null;
}

export interface OrderSearch {
  merchantId?: string | undefined;
  eventId?: string | undefined;
  state?: OrderState | undefined;
  createdFrom?: Date | undefined;
  createdBefore?: Date | undefined;
  /** `ord_…` or `tkt_…` (exact), else part of the buyer's e-mail. */
  q?: string | undefined;
  sort: 'created' | 'total';
  direction: 'asc' | 'desc';
  limit: number;
  cursor?: string | undefined;
}

/**
 * SQL for an order's buyer contact (`buyer_email`, `buyer_name`), with `o` the order: the signed-in buyer's address,
 * else the one an ACP checkout session was completed with; the name only ACP gives.
 */
export const BUYER_JOIN = `left join buyers b on b.id = o.buyer_id
  left join lateral (select a.buyer->>'email' as email,
      coalesce(a.buyer->>'full_name', nullif(trim(concat_ws(' ', a.buyer->>'first_name', a.buyer->>'last_name')), ''))
        as name
    from acp_checkout_sessions a where a.reservation_id = o.reservation_id and a.buyer is not null limit 1) acp on true`;
export const BUYER_COLUMNS = 'coalesce(b.email, acp.email) as buyer_email, acp.name as buyer_name';

/** The contact from a row selected with BUYER_COLUMNS. */
export function buyerOf(row: { buyer_email: string | null; buyer_name: string | null }): BuyerContact | null {
  return row.buyer_email ? { email: row.buyer_email, name: row.buyer_name } : null;
}

/** Throws `not_found` unless the principal is a merchant one (the only kinds that read buyer contacts). */
export function requireMerchantPrincipal(principal: Principal): string {
  if (principal.kind !== 'api_key' && principal.kind !== 'console_user') throw new ToolError('forbidden');
  return principal.organizationId;
}

interface Row {
  id: string;
  shop_id: string;
  event_id: string;
  event_title: string;
  tier_id: string;
  tier_name: string;
  quantity: number;
  total_minor: number;
  refunded_minor: number;
  currency: string;
  state: OrderState;
  created_at: Date;
  buyer_email: string | null;
  buyer_name: string | null;
  checked_in: number;
  order_lines: OrderLine[] | null;
}

/** The cursor of a page: the sort key of its last row (the total, for `total`) and its id; opaque to callers. */
function decodeCursor(cursor: string, sort: OrderSearch['sort']): { total?: number; id: string } {
  const m = /^(c|t):(?:(\d{1,12}):)?([A-Za-z0-9_]{1,100})$/.exec(cursor);
  if (!m || (m[1] === 't') !== (sort === 'total') || (sort === 'total') !== (m[2] !== undefined))
    throw new ToolError('invalid_input', 'The cursor is not one this search returned.', { field: 'cursor' });
  return sort === 'total' ? { total: Number(m[2]), id: m[3]! } : { id: m[3]! };
}

const encodeCursor = (r: Row, sort: OrderSearch['sort']) =>
  sort === 'total' ? `t:${r.total_minor}:${r.id}` : `c:${r.id}`;

/** One page of the organization's orders matching the search, with the next page's cursor when there is one. */
export async function searchOrders(em: EntityManager, principal: Principal, s: OrderSearch) {
  const org = requireMerchantPrincipal(principal);
  if (s.merchantId) await requireShop(em, principal, s.merchantId);
  if (s.eventId) await requireMerchantEvent(em, principal, s.eventId);
  const where = ['o.organization_id = ?'];
  const params: unknown[] = [org];
  const add = (clause: string, ...values: unknown[]) => {
    where.push(clause);
    params.push(...values);
  };
  if (s.merchantId) add('o.shop_id = ?', s.merchantId);
  if (s.eventId) add('o.event_id = ?', s.eventId);
  if (s.state) add('o.state = ?', s.state);
  if (s.createdFrom) add('o.created_at >= ?', s.createdFrom);
  if (s.createdBefore) add('o.created_at < ?', s.createdBefore);
  const q = s.q?.trim();
  if (q?.startsWith('ord_')) add('o.id = ?', q);
  else if (q?.startsWith('tkt_')) add('exists (select 1 from tickets k where k.order_id = o.id and k.id = ?)', q);
  else if (q)
    add(`coalesce(b.email, acp.email) ilike ? escape '\\'`, `%${q.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`);
  const cmp = s.direction === 'desc' ? '<' : '>';
  if (s.cursor) {
    const c = decodeCursor(s.cursor, s.sort);
    if (s.sort === 'total') add(`(o.total_minor, o.id) ${cmp} (?, ?)`, c.total, c.id);
    else add(`o.id ${cmp} ?`, c.id);
  }
  const dir = s.direction;
  const order = s.sort === 'total' ? `o.total_minor ${dir}, o.id ${dir}` : `o.id ${dir}`;
  const rows = await sql<Row>(
    em,
    `select o.id, o.shop_id, o.event_id, e.title as event_title, o.tier_id, t.name as tier_name, o.quantity,
            o.total_minor, o.refunded_minor, o.currency, o.state, o.created_at, ${BUYER_COLUMNS},
            (select count(*)::int from tickets k where k.order_id = o.id and k.checked_in_at is not null) as checked_in,
            ${ORDER_LINES_COLUMN}
       from orders o join events e on e.id = o.event_id join tiers t on t.id = o.tier_id
       ${BUYER_JOIN}
      where ${where.join(' and ')}
      order by ${order} limit ${s.limit + 1}`,
    params,
  );
  const page = rows.slice(0, s.limit);
  const orders = page.map((r) => ({
    id: r.id,
    merchantId: r.shop_id,
    eventId: r.event_id,
    eventTitle: r.event_title,
    tierId: r.tier_id,
    tierName: r.tier_name,
    quantity: r.quantity,
    ...orderLinesField(r),
    totalMinor: r.total_minor,
    refundedMinor: r.refunded_minor,
    currency: r.currency,
    state: r.state,
    createdAt: iso(r.created_at),
    buyer: buyerOf(r),
    checkedIn: r.checked_in,
  }));
  return rows.length > s.limit ? { orders, nextCursor: encodeCursor(page.at(-1)!, s.sort) } : { orders };
}
