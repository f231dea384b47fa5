/** update_pool: change a pool's capacity, never below what is held and sold. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { changeCapacityOfferingFirst } from '../../domain/purchase/waiting-list-admin.ts';
import { poolOut } from '../../domain/catalog/serialize.ts';
import { PoolOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const updatePool = defineTool({
  name: 'update_pool',
  title: 'Change a pool’s capacity',
  area: 'integration',
  description:
    'Sets a pool’s `capacity`; `availableCount` moves by the same amount, so availableCount + held + sold = capacity ' +
    'holds. A capacity below the places held and sold right now is refused with capacity_below_committed and ' +
    '`details` { requested, held, sold, minimum }. Safe under concurrent reserves. Emits the `pool.updated` webhook ' +
    'event. Requires merchant:write (console: the owner).',
  input: z.strictObject({
    id: IdRef.describe('The pool id (pool_…).'),
    capacity: z.number().int().min(0).max(10_000_000).describe('The new capacity; not below the places held and sold.'),
  }),
  output: PoolOut,
  errors: ['not_found', 'capacity_below_committed'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'PATCH', path: '/v1/integration/pools/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id, capacity }, ctx) {
    return poolOut(await changeCapacityOfferingFirst(ctx, id, capacity));
  },
});
