/** get_event: an event with its tiers and each tier's live availability. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { getEventWithTiers } from '../../domain/catalog/catalog.ts';
import { eventOut, tierOut } from '../../domain/catalog/serialize.ts';
import { EventOut, TierOut } from './schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const getEvent = defineTool({
  name: 'get_event',
  title: 'Get an event with its tiers',
  area: 'catalog',
  description:
    'Returns an event and its tiers. Each tier carries its price, restrictions and `availableCount`, the live number ' +
    'of places left in the pool it sells from. Next: `quote` with a tier id to start a purchase.',
  input: z.strictObject({ id: IdRef.describe('The event id (evt_…).') }),
  output: z.object({ event: EventOut, tiers: z.array(TierOut) }),
  errors: ['not_found'],
  auth: { principals: ['api_key', 'console_user', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/catalog/events/{id}' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, ctx) {
    const { event, tiers } = await getEventWithTiers(ctx, id);
    return { event: eventOut(event), tiers: tiers.map((t) => tierOut(t.tier, t.availableCount)) };
  },
});
