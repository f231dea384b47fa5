/** get_order: an order with its tickets, payments and refunds. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { readOrder } from '../../domain/purchase/purchase-view.ts';
import { orderTaxField } from '../../domain/purchase/tax-view.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { OrderOut } from './schemas.ts';

export const getOrder = defineTool({
  name: 'get_order',
  title: 'Get an order',
  area: 'ticketing',
  description:
    'Returns an order: its tickets (opaque `code`, verifiable `signedCode`, valid or void, check-in), its ' +
    'reservation’s payment attempts and its refunds. States: completed, partially_refunded, refunded (also when a ' +
    'late payment found the places gone: then no tickets). Merchants see their organization’s orders, a buyer its ' +
    'own, an agent the ones it made.',
  input: z.strictObject({ id: IdRef.describe('The order (ord_…).') }),
  output: OrderOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/orders/{id}' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, { em, principal }) {
    const order = await readOrder(em, principal, id);
    return { ...order, ...(await orderTaxField(em, order.reservationId)) };
  },
});
