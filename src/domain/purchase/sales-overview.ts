/**
 * A shop's sales at a glance (the console's Overview and its live check-in counts): per event, each pool's capacity,
 * sold, held and available places, the revenue (gross, refunded, net), the sales in time buckets over a range, and the
 * check-ins. A handful of grouped queries whatever the number of orders; merchant principals of the shop's organization only.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import type { Principal } from '../../kernel/principal.ts';
import { iso } from '../../kernel/wire.ts';
import { sql } from '../../storage/database.ts';
import { requireShop } from '../catalog/access.ts';
import { requireMerchantPrincipal } from './order-search.ts';

/** The most buckets one overview returns (a year of days; 16 days of hours). */
export const MAX_BUCKETS = 400;
/** The most events one overview returns: a page, in start order; `nextCursor` continues. */
export const OVERVIEW_EVENTS_PAGE = 100;
const BUCKET_MS = { hour: 3_600_000, day: 86_400_000 } as const;

export interface OverviewQuery {
  merchantId: string;
  eventId?: string | undefined;
  from: Date;
  to: Date;
  bucket: 'hour' | 'day';
  /** The previous page's `nextCursor` (the id of its last event). */
  cursor?: string | undefined;
}

/** The UTC start of the bucket `at` falls in. */
function bucketStart(at: Date, bucket: OverviewQuery['bucket']): number {
  const ms = BUCKET_MS[bucket];
  return Math.floor(at.getTime() / ms) * ms;
}

const num = (v: unknown): number => Number(v ?? 0);

interface PoolRow {
  event_id: string;
  id: string;
  title: string | null;
  capacity: number;
  available_count: number;
  held: string;
}

/** The overview of one shop (optionally one event); `invalid_input` when the range is empty or has too many buckets. */
export async function salesOverview(em: EntityManager, principal: Principal, q: OverviewQuery) {
  requireMerchantPrincipal(principal);
  const shop = await requireShop(em, principal, q.merchantId);
  if (q.to <= q.from) throw new ToolError('invalid_input', '`to` must be after `from`.', { field: 'to' });
  const first = bucketStart(q.from, q.bucket);
  const step = BUCKET_MS[q.bucket];
  const count = Math.ceil((q.to.getTime() - first) / step);
  if (count > MAX_BUCKETS)
    throw new ToolError('invalid_input', `At most ${MAX_BUCKETS} buckets: widen the bucket or narrow the range.`, {
      field: 'bucket',
      buckets: count,
    });
  const after = q.cursor ? 'and (starts_at, id) > (select starts_at, id from events where id = ? and shop_id = ?)' : '';
  const rows = await sql<{ id: string; title: string; starts_at: Date; cancelled_at: Date | null }>(
    em,
    `select id, title, starts_at, cancelled_at from events
      where shop_id = ? ${q.eventId ? 'and id = ?' : ''} ${after} order by starts_at, id limit ?`,
    [shop.id, ...(q.eventId ? [q.eventId] : []), ...(q.cursor ? [q.cursor, shop.id] : []), OVERVIEW_EVENTS_PAGE + 1],
  );
  if (q.eventId && !rows.length) throw new ToolError('not_found', `No event ${q.eventId}.`, { eventId: q.eventId });
  if (!rows.length) return { merchantId: shop.id, from: iso(q.from), to: iso(q.to), bucket: q.bucket, events: [] };
  const events = rows.slice(0, OVERVIEW_EVENTS_PAGE);
  const nextCursor = rows.length > OVERVIEW_EVENTS_PAGE ? { nextCursor: events.at(-1)!.id } : {};
  // The page's events, as a list (with its parameters) each grouped query filters by.
  const evt = `(${events.map(() => '?').join(', ')})`;
  const ep = events.map((e) => e.id);
  const pools = await sql<PoolRow>(
    em,
    `select x.event_id, p.id, p.title, p.capacity, p.available_count,
            coalesce((select sum(r.quantity) from reservation_pool_lines r
                       where r.pool_id = p.id and r.state in ('held', 'confirming')), 0) as held
       from (select t.event_id, t.pool_id from tiers t where t.event_id in ${evt}
             union select p2.event_id, p2.id from pools p2 where p2.event_id in ${evt}) x
       join pools p on p.id = x.pool_id
      order by x.event_id, p.created_at, p.id`,
    [...ep, ...ep],
  );
  const revenue = await sql<{ event_id: string; gross: string; refunded: string }>(
    em,
    `select event_id, sum(total_minor) as gross, sum(refunded_minor) as refunded
       from orders where event_id in ${evt} group by event_id`,
    ep,
  );
  const sales = await sql<{ event_id: string; bucket: string; orders: string; tickets: string; gross: string }>(
    em,
    `select event_id, floor(extract(epoch from created_at) * 1000 / ?)::bigint as bucket,
            count(*) as orders, sum(quantity) as tickets, sum(total_minor) as gross
       from orders where event_id in ${evt} and created_at >= ? and created_at < ?
      group by 1, 2`,
    [step, ...ep, new Date(first), q.to],
  );
  const doors = await sql<{ event_id: string; valid: string; checked_in: string }>(
    em,
    `select event_id, count(*) filter (where state = 'valid') as valid,
            count(*) filter (where state = 'valid' and checked_in_at is not null) as checked_in
       from tickets where event_id in ${evt} group by event_id`,
    ep,
  );
  return {
    merchantId: shop.id,
    from: iso(q.from),
    to: iso(q.to),
    bucket: q.bucket,
    ...nextCursor,
    events: events.map((e) => {
      const money = revenue.find((r) => r.event_id === e.id);
      const byBucket = new Map(sales.filter((s) => s.event_id === e.id).map((s) => [num(s.bucket) * step, s] as const));
      const door = doors.find((d) => d.event_id === e.id);
      return {
        eventId: e.id,
        title: e.title,
        startsAt: iso(e.starts_at),
        cancelled: e.cancelled_at !== null,
        pools: pools
          .filter((p) => p.event_id === e.id)
          .map((p) => ({
            poolId: p.id,
            title: p.title,
            capacity: p.capacity,
            // available + held + sold = capacity, at every commit.
            sold: p.capacity - p.available_count - num(p.held),
            held: num(p.held),
            available: p.available_count,
          })),
        revenue: {
          currency: shop.currency,
          grossMinor: num(money?.gross),
          refundedMinor: num(money?.refunded),
          netMinor: num(money?.gross) - num(money?.refunded),
        },
        sales: Array.from({ length: count }, (_, i) => {
          const start = first + i * step;
          const s = byBucket.get(start);
          return {
            start: iso(new Date(start)),
            orders: num(s?.orders),
            tickets: num(s?.tickets),
            grossMinor: num(s?.gross),
          };
        }),
        checkIns: { checkedIn: num(door?.checked_in), valid: num(door?.valid) },
      };
    }),
  };
}
