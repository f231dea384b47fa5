/** get_event: an event with its tiers and each tier's live availability. */
import { z } from 'zod';
import { requireShop } from '../../orchestrator/access.ts';
import { ToolError } from '../../orchestrator/errors.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Event, Pool, Tier } from '../../storage/entities/catalog.ts';
import { EventOut, TierOut } from '../schemas.ts';
import { eventOut, tierOut } from '../serialize.ts';

export const getEvent = defineTool({
  name: 'get_event',
  title: 'Get an event with its tiers',
  area: 'catalog',
  description:
    'Returns an event and its tiers. Each tier carries its price, restrictions and `availableCount`, the live number ' +
    'of places left in the pool it sells from. Use a tier id with `quote` to start a purchase.',
  input: z.strictObject({ id: z.string().min(1).describe('The event id (evt_…).') }),
  output: z.object({ event: EventOut, tiers: z.array(TierOut) }),
  errors: ['not_found'],
  auth: { principals: ['api_key', 'console_user', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/catalog/events/{id}' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, { em, principal }) {
    const event = await em.findOne(Event, { id });
    if (!event) throw new ToolError('not_found', `No event ${id}.`, { eventId: id });
    await requireShop(em, principal, event.shopId).catch(() => {
      throw new ToolError('not_found', `No event ${id}.`, { eventId: id });
    });
    const tiers = await em.find(Tier, { eventId: id }, { orderBy: { id: 'asc' } });
    const pools = await em.find(Pool, { id: { $in: [...new Set(tiers.map((t) => t.poolId))] } });
    const available = new Map(pools.map((p) => [p.id, p.availableCount]));
    return { event: eventOut(event), tiers: tiers.map((t) => tierOut(t, available.get(t.poolId) ?? 0)) };
  },
});
