/** get_order: an order with its tickets (or its refund). */
import { z } from 'zod';
import { requireAccess } from '../../orchestrator/purchase-access.ts';
import { loadOrderView } from '../../orchestrator/purchase-view.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Order } from '../../storage/entities/purchase.ts';
import { OrderOut } from './schemas.ts';

export const getOrder = defineTool({
  name: 'get_order',
  title: 'Get an order',
  area: 'ticketing',
  description:
    'Returns an order: `completed` with one ticket (unique admission code) per place, or `refunded` (no tickets) when ' +
    'a late payment found the places gone and was refunded automatically.',
  input: z.strictObject({ id: z.string().min(1).describe('The order (ord_…).') }),
  output: OrderOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/orders/{id}' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, { em, principal }) {
    const order = requireAccess(principal, await em.findOne(Order, { id }), 'order', id);
    return loadOrderView(em, order);
  },
});
