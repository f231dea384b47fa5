/**
 * UCP's catalog (search and lookup, 2026-04-08) from our public discovery data: a product is an upcoming event of a
 * discoverable shop, its variants the tiers for sale (a variant id is the tier id that a checkout's line item takes).
 * Prices and availability are discovery-time signals, as in the shop window; the checkout stays authoritative.
 */
import type { ToolContext } from '../context.ts';
import { iso } from '../../kernel/wire.ts';
import { sql } from '../../storage/database.ts';
import { Shop, Tier, type ShopRow } from '../../storage/entities/catalog.ts';
import { variantAvailability } from '../discovery/product-feed.ts';
import { upcomingCatalog, type WindowEvent, type WindowTier } from '../discovery/shop-window.ts';
import type { UcpCatalogResultOut, UcpProductOut } from './catalog-schema.ts';
import { UCP_VERSION } from './protocol.ts';

type Input = { id: string; match: 'exact' | 'featured' };

/** The answer's `ucp` metadata for the catalog capability that served it. */
const meta = (capability: string) => ({
  version: UCP_VERSION,
  status: 'success' as const,
  capabilities: { [capability]: [{ version: UCP_VERSION }] },
});

function product(ctx: ToolContext, shop: ShopRow, w: WindowEvent, now: Date, tiers: WindowTier[], inputs?: Input[][]) {
  const { event } = w;
  const prices = tiers.map((t) => t.tier.priceMinor);
  const price = (amount: number) => ({ amount, currency: tiers[0]!.tier.currency });
  const when = event.endsAt ? `${iso(event.startsAt)} to ${iso(event.endsAt)}` : `from ${iso(event.startsAt)}`;
  const out: UcpProductOut = {
    id: event.id,
    title: event.title,
    description: { plain: event.venue ? `${event.title} at ${event.venue}, ${when}.` : `${event.title}, ${when}.` },
    url: new URL(`/v1/discovery/shops/${encodeURIComponent(shop.id)}`, ctx.services.publicUrl()).toString(),
    price_range: { min: price(Math.min(...prices)), max: price(Math.max(...prices)) },
    variants: tiers.map((t, i) => ({
      id: t.tier.id,
      title: `${event.title} — ${t.tier.name}`,
      description: { plain: t.tier.name },
      price: price(t.tier.priceMinor),
      availability: variantAvailability(t, now),
      ...(inputs ? { inputs: inputs[i]! } : {}),
    })),
  };
  return out;
}

/** Each shop's upcoming catalog, read once per shop. */
async function catalogs(ctx: ToolContext, shopIds: string[], now: Date): Promise<Map<string, [ShopRow, WindowEvent]>> {
  const shops = await ctx.em.find(Shop, { id: { $in: [...new Set(shopIds)] }, discoverable: true, deletedAt: null });
  const byEvent = new Map<string, [ShopRow, WindowEvent]>();
  for (const shop of shops)
    for (const w of await upcomingCatalog(ctx.em, shop, now)) byEvent.set(w.event.id, [shop, w]);
  return byEvent;
}

const cursorOf = (startsAt: Date, id: string) => Buffer.from(`${iso(startsAt)}|${id}`).toString('base64url');
function afterOf(cursor: string | undefined): [string, string] | undefined {
  const [at, id] = cursor ? Buffer.from(cursor, 'base64url').toString().split('|') : [];
  return at && id && !Number.isNaN(Date.parse(at)) ? [at, id] : undefined;
}

/** Upcoming events of discoverable shops whose title or venue holds `query`, soonest first, a page at a time. */
export async function searchUcpCatalog(
  ctx: ToolContext,
  body: { query?: string | undefined; pagination?: { cursor?: string | undefined; limit?: number | undefined } },
  capability: string,
): Promise<UcpCatalogResultOut> {
  const now = ctx.clock.now();
  const limit = body.pagination?.limit ?? 10;
  const query = body.query?.trim();
  const after = afterOf(body.pagination?.cursor);
  const like = query ? `%${query.replace(/[\\%_]/g, '\\$&')}%` : undefined;
  const rows = await sql<{ id: string; shop_id: string; starts_at: Date }>(
    ctx.em,
    `select e.id, e.shop_id, e.starts_at from events e
       join shops s on s.id = e.shop_id and s.discoverable and s.deleted_at is null
      where e.cancelled_at is null and (e.ends_at > ? or (e.ends_at is null and e.starts_at > ?))
        ${like ? 'and (e.title ilike ? or e.venue ilike ?)' : ''}
        ${after ? 'and (e.starts_at, e.id) > (?::timestamptz, ?)' : ''}
      order by e.starts_at, e.id limit ?`,
    [now, now, ...(like ? [like, like] : []), ...(after ?? []), limit + 1],
  );
  const page = rows.slice(0, limit);
  const found = await catalogs(
    ctx,
    page.map((r) => r.shop_id),
    now,
  );
  const products = page.flatMap((r) => {
    const hit = found.get(r.id);
    return hit && hit[1].tiers.length ? [product(ctx, hit[0], hit[1], now, hit[1].tiers)] : [];
  });
  const last = page.at(-1);
  const more = rows.length > limit && last;
  return {
    ucp: meta(capability),
    products,
    pagination: more
      ? { has_next_page: true, cursor: cursorOf(new Date(last.starts_at), last.id) }
      : { has_next_page: false },
  };
}

/**
 * Resolves event ids (a product: its first tier is the featured variant) and tier ids (that variant, exactly); an id
 * that is no upcoming event or tier for sale of a discoverable shop is left out. Each product is answered once.
 */
export async function lookupUcpCatalog(
  ctx: ToolContext,
  ids: string[],
  capability: string,
): Promise<UcpCatalogResultOut> {
  const now = ctx.clock.now();
  const wanted = [...new Set(ids)];
  const tiers = await ctx.em.find(Tier, { id: { $in: wanted } });
  const events = await sql<{ id: string; shop_id: string }>(
    ctx.em,
    `select id, shop_id from events where id in (${wanted.map(() => '?').join(', ')})
     union select e.id, e.shop_id from events e where e.id in (${tiers.map(() => '?').join(', ') || 'null'})`,
    [...wanted, ...tiers.map((t) => t.eventId)],
  );
  const found = await catalogs(
    ctx,
    events.map((e) => e.shop_id),
    now,
  );
  const picked = new Map<string, Map<string, Input[]>>(); // event id → tier id → inputs, in request order
  const pick = (eventId: string, tierId: string, input: Input) => {
    const variants = picked.get(eventId) ?? new Map<string, Input[]>();
    picked.set(eventId, variants);
    variants.set(tierId, [...(variants.get(tierId) ?? []), input]);
  };
  for (const id of wanted) {
    const direct = found.get(id);
    if (direct?.[1].tiers[0]) pick(id, direct[1].tiers[0].tier.id, { id, match: 'featured' });
    const tier = tiers.find((t) => t.id === id);
    const parent = tier && found.get(tier.eventId);
    if (tier && parent?.[1].tiers.some((t) => t.tier.id === id)) pick(tier.eventId, id, { id, match: 'exact' });
  }
  const products = [...picked].map(([eventId, variants]) => {
    const [shop, w] = found.get(eventId)!;
    const chosen = w.tiers.filter((t) => variants.has(t.tier.id));
    return product(
      ctx,
      shop,
      w,
      now,
      chosen,
      chosen.map((t) => variants.get(t.tier.id)!),
    );
  });
  return { ucp: meta(capability), products };
}
