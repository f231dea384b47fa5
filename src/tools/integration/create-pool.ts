/** create_pool: an inventory pool whose availableCount starts equal to its capacity (merchant:write). */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { createPool as createShopPool } from '../../domain/catalog/catalog.ts';
import { poolOut } from '../../domain/catalog/serialize.ts';
import { PoolOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const createPool = defineTool({
  name: 'create_pool',
  title: 'Create an inventory pool',
  area: 'integration',
  description:
    'Creates an inventory pool of `capacity` places. Several tiers may sell from one pool; its live ' +
    '`availableCount` (initially equal to capacity) is what prevents overselling across them.',
  input: z.strictObject({
    merchantId: IdRef.describe('The shop (shop_…) the pool belongs to.'),
    eventId: IdRef.optional().describe('An event (evt_…) of the same shop to tie the pool to.'),
    title: z.string().trim().min(1).max(300).optional().describe('A name for the pool, e.g. Stalls.'),
    capacity: z.number().int().min(0).max(1_000_000).describe('How many places the pool holds.'),
    authority: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe('Who is authoritative for this inventory (default "tessera").'),
  }),
  output: PoolOut,
  errors: ['not_found', 'insufficient_scope', 'limit_reached'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/integration/pools', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  async handler(input, ctx) {
    return poolOut(await createShopPool(ctx, input));
  },
});
