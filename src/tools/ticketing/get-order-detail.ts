/** get_order_detail: an order's page for the merchant: buyer, event, e-mails sent, check-ins. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { orderDetail } from '../../domain/purchase/order-detail.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { BuyerContactOut } from './merchant-order-schemas.ts';
import { OrderOut } from './schemas.ts';

const Time = z.string().describe('RFC 3339 date-time.');

export const getOrderDetail = defineTool({
  name: 'get_order_detail',
  title: 'Get an order’s detail',
  area: 'ticketing',
  description:
    'An order as its merchant sees it: the order (tickets with check-in, payments, refunds), the buyer’s e-mail and ' +
    'name, the event and tier, the e-mails sent about it (confirmation, refund, resend: to whom, when, queued / ' +
    'sent / failed) and its check-ins. Merchants only; another organization’s order is 404.',
  input: z.strictObject({ id: IdRef.describe('The order (ord_…).') }),
  output: z.object({
    order: OrderOut,
    buyer: BuyerContactOut,
    event: z.object({
      id: z.string(),
      title: z.string(),
      startsAt: Time,
      venue: z.string().nullable(),
      cancelled: z.boolean(),
    }),
    tier: z.object({ id: z.string(), name: z.string() }),
    tiers: z
      .array(z.object({ id: z.string(), name: z.string() }))
      .max(20)
      .optional()
      .describe(
        'Each tier of the order’s tickets, when there are several (a multi-line purchase; `tier` is the first).',
      ),
    emails: z
      .array(
        z.object({
          id: z.string(),
          kind: z.enum(['confirmation', 'refund', 'resend']),
          to: z.string().nullable().describe('Where it went (or goes, while queued).'),
          state: z.enum(['queued', 'sent', 'failed']).describe('failed: every attempt failed; it is not retried.'),
          attempts: z.number().int(),
          createdAt: Time,
          sentAt: Time.nullable(),
          refundId: z.string().nullable(),
        }),
      )
      .describe('Oldest first.'),
    checkIns: z
      .array(z.object({ ticketId: z.string(), checkedInAt: Time, device: z.string().nullable() }))
      .describe('Oldest first.'),
  }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/orders/{id}/detail' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, { em, principal }) {
    return orderDetail(em, principal, id);
  },
});
