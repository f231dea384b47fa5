/** get_product_feed_metadata: the ACP `FeedMetadata` of a discoverable shop's product feed. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { feedMetadata } from '../../domain/discovery/product-feed.ts';
import { lastCatalogChange, requireDiscoverableShop } from '../../domain/discovery/shop-window.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { FeedMetadataOut } from './schemas.ts';

export const getProductFeedMetadata = defineTool({
  name: 'get_product_feed_metadata',
  title: 'Product feed metadata (ACP)',
  area: 'discovery',
  description:
    'Public, no credential needed. Returns the ACP `FeedMetadata` of a discoverable shop’s product feed: its stable ' +
    'id and `updated_at`, the time of the last change to the shop, its events or tiers (sales change availability, ' +
    'not `updated_at`). Unknown, deleted and non-discoverable shops answer not_found.',
  input: z.strictObject({ id: IdRef.describe('The shop id (shop_…).') }),
  output: FeedMetadataOut,
  errors: ['not_found'],
  auth: { public: true },
  http: { method: 'GET', path: '/v1/discovery/shops/{id}/feed/metadata', cache: { maxAgeSeconds: 60 } },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ id }, { em }) {
    const shop = await requireDiscoverableShop(em, id);
    return feedMetadata(shop, await lastCatalogChange(em, shop));
  },
});
