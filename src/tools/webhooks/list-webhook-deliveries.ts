/** list_webhook_deliveries: the delivery log of one webhook, newest first: attempts, outcome and the next retry. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { listDeliveries } from '../../domain/merchants/webhook-subscriptions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DeliveryOut, DeliveryStatus, webhookAuth } from './shared.ts';

export const listWebhookDeliveries = defineTool({
  name: 'list_webhook_deliveries',
  title: 'List webhook deliveries',
  area: 'integration',
  description:
    'The delivery log of a webhook, newest first: for each event, its type, the number of attempts, the status, ' +
    'the last HTTP status and error, when the next retry is due and when it was delivered. Pages with `limit` ' +
    '(default 50) and `cursor` (the previous page’s nextCursor). Requires merchant:read.',
  input: z.strictObject({
    id: IdRef.describe('The webhook id, e.g. whk_…'),
    status: DeliveryStatus.optional().describe('Only deliveries in this status.'),
    limit: z.coerce.number().int().min(1).max(100).optional().describe('Deliveries per page, 1 to 100 (default 50).'),
    cursor: z.string().min(1).max(100).optional().describe('The previous page’s `nextCursor`, to continue the list.'),
  }),
  output: z.object({ deliveries: z.array(DeliveryOut), nextCursor: z.string().optional() }),
  errors: ['not_found', 'insufficient_scope'],
  auth: webhookAuth('merchant:read'),
  http: { method: 'GET', path: '/v1/integration/webhooks/{id}/deliveries' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    return listDeliveries(ctx, { ...input, limit: input.limit ?? 50 });
  },
});
