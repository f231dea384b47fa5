/** create_pool: an inventory pool whose availableCount starts equal to its capacity (merchant:write). */
import { z } from 'zod';
import { requireShop } from '../../orchestrator/access.ts';
import { ToolError } from '../../orchestrator/errors.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Event, Pool } from '../../storage/entities/catalog.ts';
import { newId } from '../../storage/ids.ts';
import { PoolOut } from '../schemas.ts';
import { poolOut } from '../serialize.ts';

export const createPool = defineTool({
  name: 'create_pool',
  title: 'Create an inventory pool',
  area: 'integration',
  description:
    'Creates an inventory pool of `capacity` places. Several tiers may sell from one pool; its live ' +
    '`availableCount` (initially equal to capacity) is what prevents overselling across them.',
  input: z.strictObject({
    merchantId: z.string().min(1),
    eventId: z.string().min(1).optional(),
    title: z.string().trim().min(1).max(300).optional(),
    capacity: z.number().int().min(0).max(1_000_000),
    authority: z.string().trim().min(1).max(100).optional().describe('Who is authoritative for this inventory (default "tessera").'),
  }),
  output: PoolOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/integration/pools', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  async handler(input, { em, principal, clock }) {
    await requireShop(em, principal, input.merchantId);
    if (input.eventId) {
      const event = await em.findOne(Event, { id: input.eventId, shopId: input.merchantId });
      if (!event) throw new ToolError('not_found', `No event ${input.eventId} in this shop.`, { eventId: input.eventId });
    }
    const pool = em.create(Pool, {
      id: newId('pool'),
      shopId: input.merchantId,
      eventId: input.eventId ?? null,
      title: input.title ?? null,
      capacity: input.capacity,
      availableCount: input.capacity,
      authority: input.authority ?? 'tessera',
      createdAt: clock.now(),
    });
    await em.flush();
    return poolOut(pool);
  },
});
