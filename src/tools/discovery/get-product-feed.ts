/** get_product_feed: a discoverable shop's catalog as an ACP product feed (`ProductsResponse`). */
import { z } from 'zod';
import { feedProducts } from '../../domain/discovery/product-feed.ts';
import { requireDiscoverableShop, upcomingCatalog } from '../../domain/discovery/shop-window.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { FeedProductOut } from './schemas.ts';

export const getProductFeed = defineTool({
  name: 'get_product_feed',
  title: 'Product feed (ACP)',
  area: 'discovery',
  description:
    'Public, no credential needed. Returns a discoverable shop’s catalog as an Agentic Commerce Protocol product feed ' +
    '(ACP 2026-04-17 `ProductsResponse`): one product per upcoming event, one variant per tier for sale with its ' +
    'price (minor units), availability (`in_stock`, `limited_stock`, `out_of_stock`, or `not_on_sale_yet` before the ' +
    'sale opens), category and seller. A variant id is a tier id, accepted by `quote` and as an ACP checkout line item ' +
    'id. Feed prices and availability are signals; the quote is authoritative. Unknown, deleted and non-discoverable ' +
    'shops answer not_found.',
  input: z.strictObject({ id: z.string().min(1).describe('The shop id (shop_…).') }),
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
