/** get_product_feed: a discoverable shop's catalog as an ACP product feed (`ProductsResponse`). */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { feedProducts } from '../../domain/discovery/product-feed.ts';
import { requireDiscoverableShop, upcomingCatalog } from '../../domain/discovery/shop-window.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { FeedProductOut } from './schemas.ts';

export const getProductFeed = defineTool({
  name: 'get_product_feed',
  title: 'Product feed (ACP)',
  area: 'discovery',
  description:
    'Public. A discoverable shop’s catalog as an ACP product feed (2026-04-17 `ProductsResponse`): one product ' +
    'per upcoming event, one variant per tier for sale with price (minor units) and availability. A variant id is ' +
    'a tier id for `quote`. Prices and availability are signals; the quote is authoritative. Unknown or hidden ' +
    'shops: not_found.',
  input: z.strictObject({ id: IdRef.describe('The shop id (shop_…).') }),
  output: z.strictObject({ products: z.array(FeedProductOut) }),
  errors: ['not_found'],
  auth: { public: true },
  http: { method: 'GET', path: '/v1/discovery/shops/{id}/feed', cache: { maxAgeSeconds: 60 } },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ id }, { em, clock, services }) {
    const shop = await requireDiscoverableShop(em, id);
    const now = clock.now();
    const windowUrl = new URL(`/v1/discovery/shops/${encodeURIComponent(shop.id)}`, services.publicUrl()).toString();
    return { products: feedProducts(shop, await upcomingCatalog(em, shop, now), now, windowUrl) };
  },
});
