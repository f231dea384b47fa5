/**
 * Wire schemas of the public discovery area: the shop window and the ACP product feed (ACP 2026-04-17
 * `schema.feed.json`).
 */
import { z } from 'zod';

export const PublicShopOut = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  currency: z.string(),
});

export const WindowTierOut = z.object({
  id: z.string().describe('The tier id (tier_…): pass it to `quote`, or as an ACP checkout line item id.'),
  name: z.string(),
  priceMinor: z.number().int(),
  currency: z.string(),
  onSale: z.boolean().describe('Whether the tier’s sale window is open now.'),
  onSaleStart: z.string().nullable(),
  onSaleEnd: z.string().nullable(),
  maxQtyPerPurchase: z.number().int().nullable(),
  availableCount: z.number().int().describe('Live places left in the tier’s pool.'),
});

export const WindowEventOut = z.object({
  id: z.string(),
  title: z.string(),
  venue: z.string().nullable(),
  startsAt: z.string(),
  endsAt: z.string().nullable(),
  timeZone: z.string().describe('The IANA time zone the event’s times are shown in (e.g. Europe/Budapest).'),
  tiers: z.array(WindowTierOut),
});

const Price = z.strictObject({ amount: z.number().int().min(0), currency: z.string().regex(/^[A-Z]{3}$/) });

/** ACP `Variant`, as far as this feed fills it (the schema forbids any other property). */
export const FeedVariantOut = z.strictObject({
  id: z.string(),
  // The event title (at most 300 characters), " - " and the tier name.
  title: z.string().max(1000),
  price: Price,
  availability: z.strictObject({ available: z.boolean(), status: z.string().max(20) }),
  categories: z.array(z.strictObject({ value: z.string().max(100), taxonomy: z.string().max(50) })),
  variant_options: z.array(z.strictObject({ name: z.string().max(20), value: z.string() })),
  seller: z.strictObject({ name: z.string() }),
});

/** ACP `Product`. */
export const FeedProductOut = z.strictObject({
  id: z.string(),
  title: z.string(),
  // Title, venue (at most 300 characters each) and the event's times.
  description: z.strictObject({ plain: z.string().max(700) }),
  url: z.string(),
  variants: z.array(FeedVariantOut),
});

/** ACP `FeedMetadata`. */
export const FeedMetadataOut = z.strictObject({ id: z.string(), updated_at: z.string() });
