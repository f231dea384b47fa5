/** list_events: a shop's events, soonest first, with cursor pagination. */
import { z } from 'zod';
import { requireShop } from '../../orchestrator/access.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Event } from '../../storage/entities/catalog.ts';
import { EventOut } from '../schemas.ts';
import { eventOut } from '../serialize.ts';

export const listEvents = defineTool({
  name: 'list_events',
  title: 'List a shop’s events',
  area: 'catalog',
  description:
    'Lists a shop’s events ordered by start time. Pass `nextCursor` from the previous page as `cursor` to continue.',
  input: z.strictObject({
    id: z.string().min(1).describe('The shop id (shop_…).'),
    limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1 to 100 (default 50).'),
    cursor: z.string().min(1).optional(),
  }),
  output: z.object({ events: z.array(EventOut), nextCursor: z.string().optional() }),
  errors: ['not_found'],
  auth: { principals: ['api_key', 'console_user', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/catalog/shops/{id}/events' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id, limit = 50, cursor }, { em, principal }) {
    await requireShop(em, principal, id);
    const where = cursor ? { shopId: id, id: { $gt: cursor } } : { shopId: id };
    const rows = await em.find(Event, where, { orderBy: { id: 'asc' }, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { events: page.map(eventOut), ...(rows.length > limit && last ? { nextCursor: last.id } : {}) };
  },
});
