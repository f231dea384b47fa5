/**
 * A discoverable shop's catalog as an ACP product feed (ACP 2026-04-17, `schema.feed.json`): the body is a
 * `ProductsResponse` (`{ products }`), with one `Product` per upcoming event and one `Variant` per tier for sale.
 * A variant's `id` is the tier id, which `quote` and ACP checkout (`line_items[].id`) accept as is (RFC §3.2).
 * Feed prices and availability are discovery-time signals; the quote and checkout stay authoritative (RFC §3.3).
 */
import { iso } from '../../kernel/wire.ts';
import type { ShopRow } from '../../storage/entities/catalog.ts';
import { onSaleNow, type WindowEvent, type WindowTier } from './shop-window.ts';

/** The feed's category for every ticket, in Google's product taxonomy (id 499978 "Event Tickets"). */
export const TICKET_CATEGORY = {
  value: 'Arts & Entertainment > Event Tickets',
  taxonomy: 'google_product_category',
} as const;

/**
 * A variant's availability: `out_of_stock` when the pool is empty, `not_on_sale_yet` (an extension of ACP's
 * extensible status) before the tier's sale opens, `limited_stock` when a tenth of the pool or less is left,
 * otherwise `in_stock`. `available` is true only while the tier can be bought now.
 */
export function variantAvailability({ tier, pool }: WindowTier, now: Date): { available: boolean; status: string } {
  if (pool.availableCount <= 0) return { available: false, status: 'out_of_stock' };
  if (!onSaleNow(tier, now)) return { available: false, status: 'not_on_sale_yet' };
  return { available: true, status: pool.availableCount * 10 <= pool.capacity ? 'limited_stock' : 'in_stock' };
}

function eventDescription(e: WindowEvent['event']): string {
  const when = e.endsAt ? `${iso(e.startsAt)} to ${iso(e.endsAt)}` : `from ${iso(e.startsAt)}`;
  return e.venue ? `${e.title} at ${e.venue}, ${when}.` : `${e.title}, ${when}.`;
}

/** The products of the feed (ACP `Product[]`), soonest event first. */
export function feedProducts(shop: ShopRow, catalog: WindowEvent[], now: Date, windowUrl: string) {
  return catalog.map(({ event, tiers }) => ({
    id: event.id,
    title: event.title,
    description: { plain: eventDescription(event) },
    url: windowUrl,
    variants: tiers.map((t) => ({
      id: t.tier.id,
      title: `${event.title} - ${t.tier.name}`,
      price: { amount: t.tier.priceMinor, currency: t.tier.currency },
      availability: variantAvailability(t, now),
      categories: [{ ...TICKET_CATEGORY }],
      variant_options: [{ name: 'Tier', value: t.tier.name }],
      seller: { name: shop.name },
    })),
  }));
}

/** The feed's metadata (ACP `FeedMetadata`): a stable id per shop and `updated_at`, the last catalog change. */
export function feedMetadata(shop: ShopRow, lastChange: Date) {
  return { id: `feed_${shop.id}`, updated_at: iso(lastChange) };
}
