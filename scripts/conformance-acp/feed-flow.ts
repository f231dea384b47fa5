/**
 * The ACP conformance run's product feed flow (schema.feed.json).
 */
import type { Flow } from './context.ts';

/**
 * The product feed (docs/discovery.md): the demo shop's feed (the embedded start seeds it, discoverable) and this
 * run's own shop made discoverable with a tier on sale and one not on sale yet, read anonymously: `products.json`
 * against `schema.feed.json#/$defs/ProductsResponse`, each product against `#/$defs/Product` (the `products.jsonl`
 * form) and `metadata.json` against `#/$defs/FeedMetadata`.
 */
export const feedFlow: Flow = {
  name: 'product feed: the demo shop and a discoverable shop, ProductsResponse, Product and FeedMetadata',
  async run(c) {
    const FEED = 'schema.feed.json';
    await c.rest('PATCH', `/v1/integration/shops/${c.shopId}`, 200, {
      discoverable: true,
      description: 'Conformance concerts',
    });
    const startsAt = new Date(Date.now() + 40 * 86_400_000).toISOString();
    const event = await c.rest('POST', '/v1/integration/events', 201, {
      merchantId: c.shopId,
      title: 'Feed Night',
      venue: 'Hall 1',
      startsAt,
    });
    const pool = await c.rest('POST', '/v1/integration/pools', 201, {
      merchantId: c.shopId,
      eventId: event.id,
      capacity: 20,
    });
    await c.rest('POST', '/v1/integration/tiers', 201, {
      eventId: event.id,
      poolId: pool.id,
      name: 'Standing',
      priceMinor: 3000,
    });
    const later = new Date(Date.now() + 10 * 86_400_000).toISOString();
    await c.rest('POST', '/v1/integration/tiers', 201, {
      eventId: event.id,
      poolId: pool.id,
      name: 'Late release',
      priceMinor: 4500,
      onSaleStart: later,
    });

    const directory = await c.anon('/v1/discovery/shops', 200);
    const demo = (directory.shops as { id: string; name: string }[]).find((s) => s.name === 'Demo Arena');
    const shops = [
      ...(demo ? [{ id: demo.id, label: 'the demo shop' }] : []),
      { id: c.shopId, label: 'the conformance shop' },
    ];
    if (!demo && !process.env.DATABASE_URL) throw new Error('the embedded start seeded no discoverable demo shop');
    for (const shop of shops) {
      const products = await c.anon(`/v1/discovery/shops/${shop.id}/feed`, 200);
      c.check(FEED, 'ProductsResponse', products, `products.json of ${shop.label}`);
      if (!Array.isArray(products.products) || products.products.length === 0)
        throw new Error(`the feed of ${shop.label} has no products`);
      for (const product of products.products)
        c.check(FEED, 'Product', product, `a products.jsonl line of ${shop.label} (${product.id})`);
      c.check(
        FEED,
        'FeedMetadata',
        await c.anon(`/v1/discovery/shops/${shop.id}/feed/metadata`, 200),
        `metadata.json of ${shop.label}`,
      );
    }
  },
};
