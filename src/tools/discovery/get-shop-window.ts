/** get_shop_window: a discoverable shop's upcoming events, tiers, prices and live availability. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { requireDiscoverableShop, shopWindowOut, upcomingCatalog } from '../../domain/discovery/shop-window.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PublicShopOut, WindowEventOut } from './schemas.ts';

export const getShopWindow = defineTool({
  name: 'get_shop_window',
  title: 'Shop window',
  area: 'discovery',
  description:
    'Public. A discoverable shop’s window: name, description, currency and its upcoming events (soonest first, at ' +
    'most 200) with the tiers still for sale: price in minor units, sale window, `availableCount`. Unknown or ' +
    'hidden shops: not_found. Buy with a tier id: `quote`.',
  input: z.strictObject({ id: IdRef.describe('The shop id (shop_…).') }),
  output: z.object({ shop: PublicShopOut, events: z.array(WindowEventOut) }),
  errors: ['not_found'],
  auth: { public: true },
  http: { method: 'GET', path: '/v1/discovery/shops/{id}', cache: { maxAgeSeconds: 10 } },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ id }, { em, clock }) {
    const shop = await requireDiscoverableShop(em, id);
    const now = clock.now();
    return shopWindowOut(shop, await upcomingCatalog(em, shop, now), now);
  },
});
