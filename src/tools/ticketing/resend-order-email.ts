/** resend_order_email: a merchant queues an order's tickets e-mail again. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { resendOrderEmail as resend } from '../../domain/purchase/order-resend.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const resendOrderEmail = defineTool({
  name: 'resend_order_email',
  title: 'Resend the tickets e-mail',
  area: 'ticketing',
  description:
    'Queues the order’s tickets e-mail again, to the buyer’s address (the order-mail worker sends it; see ' +
    'get_order_detail’s `emails`). 202 queued. 409 conflict when the order is refunded or has no buyer address; 429 ' +
    'rate_limited after 3 resends of one order within an hour. Merchants (merchant:write). A retry with the same ' +
    'idempotency key returns the same answer and sends one e-mail.',
  input: z.strictObject({ id: IdRef.describe('The order (ord_…).') }),
  output: z.object({
    orderId: z.string(),
    emailId: z.string().describe('The queued e-mail (omail_…), as listed by get_order_detail.'),
    to: z.string().describe('The address it goes to.'),
    queuedAt: z.string().describe('RFC 3339 date-time.'),
  }),
  errors: ['not_found', 'conflict', 'rate_limited', 'limit_reached', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/ticketing/orders/{id}/resend-email', status: 202 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  idempotency: 'required',
  transactional: false,
  async handler({ id }, ctx) {
    return resend(ctx, id);
  },
});
