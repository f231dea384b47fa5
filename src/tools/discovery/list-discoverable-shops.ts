/** list_discoverable_shops: the public directory of shops that opted in to discovery. */
import { z } from 'zod';
import { Cursor } from '../../kernel/wire.ts';
import { listDiscoverableShops as listShops, publicShopOut } from '../../domain/discovery/shop-window.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PublicShopOut } from './schemas.ts';

export const listDiscoverableShops = defineTool({
  name: 'list_discoverable_shops',
  title: 'List discoverable shops',
  area: 'discovery',
  description:
    'Public, no credential needed. Lists the shops that turned on `discoverable` (id, name, description, currency), ' +
    'in id order. Pass `nextCursor` from the previous page as `cursor` to continue. Open a shop with `get_shop_window`.',
  input: z.strictObject({
    limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1 to 100 (default 50).'),
    cursor: Cursor.optional(),
  }),
  output: z.object({ shops: z.array(PublicShopOut), nextCursor: z.string().optional() }),
  errors: [],
  auth: { public: true },
  http: { method: 'GET', path: '/v1/discovery/shops', cache: { maxAgeSeconds: 60 } },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ limit = 50, cursor }, { em }) {
    const page = await listShops(em, { limit, cursor });
    return { shops: page.shops.map(publicShopOut), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  },
});
