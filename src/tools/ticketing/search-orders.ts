/** search_orders: the merchant's order search (the console's Orders view), with the buyer's contact. */
import { z } from 'zod';
import { ORDER_STATES } from '../../domain/purchase/purchase-view.ts';
import { searchOrders as search } from '../../domain/purchase/order-search.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { OrderRowOut } from './merchant-order-schemas.ts';

const Instant = z.iso.datetime({ offset: true }).max(40);

export const searchOrders = defineTool({
  name: 'search_orders',
  title: 'Search orders',
  area: 'ticketing',
  description:
    'Searches the organization’s orders: `q` is an order id (ord_…), a ticket id (tkt_…) or part of the buyer’s ' +
    'e-mail; filters `merchantId`, `eventId`, `state`, `createdFrom` (inclusive), `createdBefore` (exclusive); ' +
    '`sort` created (default) or total, `direction` desc (default) or asc. Each row carries the buyer’s e-mail and ' +
    'name. Continue with `cursor` = `nextCursor` (same sort). Merchants only.',
  input: z.strictObject({
    merchantId: z.string().min(1).max(100).optional().describe('Only orders in this shop (shop_…).'),
    eventId: z.string().min(1).max(100).optional().describe('Only orders for this event (evt_…).'),
    state: z.enum(ORDER_STATES).optional().describe('Only orders in this state.'),
    createdFrom: Instant.optional().describe('RFC 3339; orders created at or after this instant.'),
    createdBefore: Instant.optional().describe('RFC 3339; orders created before this instant.'),
    q: z.string().trim().min(1).max(200).optional().describe('Order id, ticket id, or part of the buyer’s e-mail.'),
    sort: z.enum(['created', 'total']).optional().describe('Sort by creation time (default) or total.'),
    direction: z.enum(['desc', 'asc']).optional().describe('desc (default) or asc.'),
    limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1 to 100 (default 25).'),
    cursor: z.string().min(1).max(120).optional().describe('The previous page’s `nextCursor`.'),
  }),
  output: z.object({ orders: z.array(OrderRowOut), nextCursor: z.string().optional() }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/order-search' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, { em, principal }) {
    const { createdFrom, createdBefore, sort = 'created', direction = 'desc', limit = 25, ...rest } = input;
    return search(em, principal, {
      ...rest,
      sort,
      direction,
      limit,
      createdFrom: createdFrom ? new Date(createdFrom) : undefined,
      createdBefore: createdBefore ? new Date(createdBefore) : undefined,
    });
  },
});
