/**
 * The public shop window (spec §1 "discovery", §7): only a shop whose `discoverable` flag is on, and which is not
 * deleted, is shown; every other id answers the same 404, so whether a shop exists never leaks. The window lists
 * upcoming events (not cancelled, not yet over) with their tiers still for sale (sellable, not retired, sale not
 * ended) and each tier's live availability.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import { iso, isoOrNull } from '../../kernel/wire.ts';
import { sql } from '../../storage/database.ts';
import {
  Event,
  Pool,
  Shop,
  Tier,
  type EventRow,
  type PoolRow,
  type ShopRow,
  type TierRow,
} from '../../storage/entities/catalog.ts';

/** How many upcoming events a window or feed shows at most (the soonest first). */
export const WINDOW_EVENT_LIMIT = 200;

/** The one answer for a shop that is unknown, deleted or not discoverable: same code, same message, no details. */
export function noDiscoverableShop(): ToolError {
  return new ToolError('not_found', 'No discoverable shop with that id.');
}

/** A live, discoverable shop, or the one 404. */
export async function requireDiscoverableShop(em: EntityManager, id: string): Promise<ShopRow> {
  const shop = await em.findOne(Shop, { id, discoverable: true, deletedAt: null });
  if (!shop) throw noDiscoverableShop();
  return shop;
}

export interface WindowTier {
  tier: TierRow;
  pool: PoolRow;
}
export interface WindowEvent {
  event: EventRow;
  tiers: WindowTier[];
}

/** A discoverable shop's upcoming events (soonest first) with the tiers still for sale and their pools. */
export async function upcomingCatalog(em: EntityManager, shop: ShopRow, now: Date): Promise<WindowEvent[]> {
  const events = await em.find(
    Event,
    { shopId: shop.id, cancelledAt: null, $or: [{ endsAt: { $gt: now } }, { endsAt: null, startsAt: { $gt: now } }] },
    { orderBy: { startsAt: 'asc', id: 'asc' }, limit: WINDOW_EVENT_LIMIT },
  );
  if (events.length === 0) return [];
  const tiers = await em.find(
    Tier,
    {
      eventId: { $in: events.map((e) => e.id) },
      sellable: true,
      retiredAt: null,
      $or: [{ onSaleEnd: null }, { onSaleEnd: { $gt: now } }],
    },
    { orderBy: { id: 'asc' } },
  );
  const pools = await em.find(Pool, { id: { $in: [...new Set(tiers.map((t) => t.poolId))] } });
  const poolById = new Map(pools.map((p) => [p.id, p]));
  return events.map((event) => ({
    event,
    tiers: tiers
      .filter((t) => t.eventId === event.id && poolById.has(t.poolId))
      .map((tier) => ({ tier, pool: poolById.get(tier.poolId)! })),
  }));
}

/** Whether a tier's sale window is open at `now`. */
export function onSaleNow(tier: TierRow, now: Date): boolean {
  return (!tier.onSaleStart || tier.onSaleStart <= now) && (!tier.onSaleEnd || tier.onSaleEnd > now);
}

/** The window's wire form (no clock-dependent field beyond what the catalog says, so the ETag is stable). */
export function shopWindowOut(shop: ShopRow, catalog: WindowEvent[], now: Date) {
  return {
    shop: publicShopOut(shop),
    events: catalog.map(({ event, tiers }) => ({
      id: event.id,
      title: event.title,
      venue: event.venue ?? null,
      startsAt: iso(event.startsAt),
      endsAt: isoOrNull(event.endsAt),
      timeZone: event.timeZone,
      tiers: tiers.map(({ tier, pool }) => ({
        id: tier.id,
        name: tier.name,
        priceMinor: tier.priceMinor,
        currency: tier.currency,
        onSale: onSaleNow(tier, now),
        onSaleStart: isoOrNull(tier.onSaleStart),
        onSaleEnd: isoOrNull(tier.onSaleEnd),
        maxQtyPerPurchase: tier.maxQtyPerPurchase ?? null,
        availableCount: pool.availableCount,
      })),
    })),
  };
}

/** What the public may know about a shop: never its organization, provider or settings. */
export function publicShopOut(shop: ShopRow) {
  return { id: shop.id, name: shop.name, description: shop.description ?? null, currency: shop.currency };
}

/** A page of discoverable shops in id order, and the cursor of the next page when there is one. */
export async function listDiscoverableShops(
  em: EntityManager,
  input: { limit: number; cursor?: string | undefined },
): Promise<{ shops: ShopRow[]; nextCursor?: string }> {
  const where = { discoverable: true, deletedAt: null, ...(input.cursor ? { id: { $gt: input.cursor } } : {}) };
  const rows = await em.find(Shop, where, { orderBy: { id: 'asc' }, limit: input.limit + 1 });
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return { shops: page, ...(rows.length > input.limit && last ? { nextCursor: last.id } : {}) };
}

/** The latest change to a shop or to any of its events and tiers (including ones since cancelled or retired). */
export async function lastCatalogChange(em: EntityManager, shop: ShopRow): Promise<Date> {
  const rows = await sql<{ at: Date | string | null }>(
    em,
    `select greatest(
       (select max(greatest(created_at, coalesce(updated_at, created_at))) from events where shop_id = ?),
       (select max(greatest(created_at, coalesce(updated_at, created_at))) from tiers where shop_id = ?)
     ) as at`,
    [shop.id, shop.id],
  );
  const times = [shop.createdAt.getTime(), shop.updatedAt?.getTime() ?? 0];
  const at = rows[0]?.at;
  if (at) times.push(new Date(at).getTime());
  return new Date(Math.max(...times));
}
