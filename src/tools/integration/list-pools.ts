/** list_pools: a shop's inventory pools with live availability (spec §4.1). */
import { z } from 'zod';
import { IdRef, Cursor } from '../../kernel/wire.ts';
import { listPools as listShopPools } from '../../domain/catalog/catalog.ts';
import { poolOut } from '../../domain/catalog/serialize.ts';
import { PoolOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const listPools = defineTool({
  name: 'list_pools',
  title: 'List inventory pools',
  area: 'integration',
  description:
    'Lists the inventory pools of a shop with live availability. `availableCount` is the live number of places left ' +
    'and is the oversell arbiter for every tier on the pool. Pools come in id order, up to `limit` (default 100) per ' +
    'page; pass `nextCursor` from the previous page as `cursor` to continue. Requires an API key with scope merchant:read.',
  input: z.strictObject({
    merchantId: IdRef.describe('The shop (merchant) id, e.g. shop_…'),
    limit: z.coerce.number().int().min(1).max(1000).optional().describe('Page size, 1 to 1000 (default 100).'),
    cursor: Cursor.optional().describe('`nextCursor` of the previous page.'),
  }),
  output: z.looseObject({ pools: z.array(PoolOut), nextCursor: z.string().optional() }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/integration/pools' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ merchantId, limit = 100, cursor }, ctx) {
    const page = await listShopPools(ctx, { shopId: merchantId, limit, cursor });
    return { pools: page.pools.map(poolOut), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  },
});
