/** preview_refund: what refund_order would pay back now, to show before the merchant confirms. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { previewRefund as preview } from '../../domain/purchase/refund-preview.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const previewRefund = defineTool({
  name: 'preview_refund',
  title: 'Preview a refund',
  area: 'ticketing',
  description:
    'Returns the tickets and amount refund_order would refund now for the same `ticketIds` (all refundable tickets ' +
    'when omitted), and what would remain refundable; changes nothing. Raises what refund_order would ' +
    '(order_fully_refunded, ticket_not_refundable). Merchants only.',
  input: z.strictObject({
    id: IdRef.describe('The order (ord_…).'),
    ticketIds: z
      .array(z.string().min(1).max(100))
      .min(1)
      .max(100)
      .optional()
      .describe('Tickets (tkt_…) to refund; all the refundable ones when omitted.'),
  }),
  output: z.object({
    orderId: z.string(),
    ticketIds: z.array(z.string()).describe('The tickets the refund would void.'),
    amountMinor: z.number().int().describe('What the refund would pay back.'),
    currency: z.string(),
    remainingMinor: z.number().int().describe('What would remain refundable after it.'),
  }),
  errors: ['not_found', 'order_fully_refunded', 'ticket_not_refundable', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'POST', path: '/v1/ticketing/orders/{id}/refund-preview' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id, ticketIds }, { em, principal }) {
    return preview(em, principal, id, ticketIds);
  },
});
