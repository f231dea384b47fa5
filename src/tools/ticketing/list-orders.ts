/** list_orders: orders the caller may see, newest first, filtered and paged. */
import { z } from 'zod';
import { ORDER_STATES } from '../../domain/purchase/purchase-view.ts';
import { listOrders as listVisibleOrders } from '../../domain/purchase/order-list.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { OrderOut } from './schemas.ts';

const Instant = z.iso.datetime({ offset: true }).max(40);

export const listOrders = defineTool({
  name: 'list_orders',
  title: 'List orders',
  area: 'ticketing',
  description:
    'Lists orders newest first, with tickets, payments and refunds. A merchant sees its organization’s (filters: ' +
    '`merchantId`, `eventId`, `state`, `createdFrom` inclusive, `createdBefore` exclusive); a buyer its own; an ' +
    'agent those it made. Filters only narrow; a shop or event the caller cannot see is 404. Continue with ' +
    '`cursor` = `nextCursor`.',
  input: z.strictObject({
    merchantId: z.string().min(1).max(100).optional().describe('Only orders in this shop (shop_…).'),
    eventId: z.string().min(1).max(100).optional().describe('Only orders for this event (evt_…).'),
    state: z.enum(ORDER_STATES).optional().describe('Only orders in this state.'),
    createdFrom: Instant.optional().describe('RFC 3339; orders created at or after this instant.'),
    createdBefore: Instant.optional().describe('RFC 3339; orders created before this instant.'),
    limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1 to 100 (default 50).'),
    cursor: z.string().min(1).max(100).optional().describe('The previous page’s `nextCursor`.'),
  }),
  output: z.object({ orders: z.array(OrderOut), nextCursor: z.string().optional() }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/orders' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, { em, principal }) {
    const { createdFrom, createdBefore, limit = 50, ...rest } = input;
    return listVisibleOrders(em, principal, {
      ...rest,
      limit,
      createdFrom: createdFrom ? new Date(createdFrom) : undefined,
      createdBefore: createdBefore ? new Date(createdBefore) : undefined,
    });
  },
});
