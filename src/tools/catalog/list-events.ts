/** list_events: a shop's events, soonest first, with cursor pagination. */
import { z } from 'zod';
import { IdRef, Cursor } from '../../kernel/wire.ts';
import { listEvents as listShopEvents } from '../../domain/catalog/catalog.ts';
import { eventOut } from '../../domain/catalog/serialize.ts';
import { EventOut } from './schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const listEvents = defineTool({
  name: 'list_events',
  title: 'List a shop’s events',
  area: 'catalog',
  description:
    'Lists a shop’s events ordered by start time. Pass `nextCursor` from the previous page as `cursor` to continue. ' +
    'Next: `get_event` for an event’s tiers, prices and live availability.',
  input: z.strictObject({
    id: IdRef.describe('The shop id (shop_…).'),
    limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1 to 100 (default 50).'),
    cursor: Cursor.optional(),
  }),
  output: z.object({ events: z.array(EventOut), nextCursor: z.string().optional() }),
  errors: ['not_found'],
  auth: { principals: ['api_key', 'console_user', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/catalog/shops/{id}/events' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id, limit = 50, cursor }, ctx) {
    const page = await listShopEvents(ctx, { shopId: id, limit, cursor });
    return { events: page.events.map(eventOut), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  },
});
