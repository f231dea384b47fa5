/** refund_order: a merchant refunds a whole order or some of its tickets, through the payment provider. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { refundOrder as refund } from '../../domain/purchase/order-refunds.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { OrderOut, RefundOut } from './schemas.ts';

export const refundOrder = defineTool({
  name: 'refund_order',
  title: 'Refund an order',
  area: 'ticketing',
  description:
    'Refunds a whole order (omit `ticketIds`) or some tickets, with a `reason`, through the shop’s provider; each ' +
    'ticket refunds its share, a whole order exactly what was paid. Refunded tickets become void; `returnToPool: ' +
    'true` puts the places back on sale. 200 refunded; 202 pending (poll get_order); 402 refund_failed (order ' +
    'stays paid). Merchants. A retry with the same key returns the same refund.',
  input: z.strictObject({
    id: IdRef.describe('The order (ord_…).'),
    ticketIds: z
      .array(z.string().min(1).max(100))
      .min(1)
      .max(100)
      .optional()
      .describe('Tickets (tkt_…) to refund; all the refundable ones when omitted.'),
    reason: z.string().trim().min(1).max(500).describe('Why, in words: kept on the refund and sent to the buyer.'),
    returnToPool: z.boolean().describe('Put the refunded places back on sale (true) or keep them out of sale (false).'),
  }),
  output: z.object({ refund: RefundOut, order: OrderOut }),
  errors: [
    'not_found',
    'order_fully_refunded',
    'ticket_not_refundable',
    'refund_failed',
    'provider_not_enabled',
    'unavailable',
    'insufficient_scope',
  ],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: {
    method: 'POST',
    path: '/v1/ticketing/orders/{id}/refunds',
    status: (out) => (out.refund.state === 'pending' ? 202 : 200),
  },
  successStatuses: [200, 202],
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  idempotency: 'required',
  transactional: false,
  async handler({ id, ...rest }, ctx) {
    return refund(ctx, { orderId: id, ...rest });
  },
});
