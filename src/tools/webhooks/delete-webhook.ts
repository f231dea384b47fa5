/** delete_webhook: ends a subscription; deliveries still waiting for an attempt are cancelled. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { deleteWebhookSubscription } from '../../domain/merchants/webhook-subscriptions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { webhookAuth } from './shared.ts';

export const deleteWebhook = defineTool({
  name: 'delete_webhook',
  title: 'Delete a webhook',
  area: 'integration',
  description:
    'Deletes a webhook subscription: no further events are delivered to it and its pending deliveries are ' +
    'cancelled. Requires merchant:write.',
  input: z.strictObject({ id: IdRef.describe('The webhook id, e.g. whk_…') }),
  output: z.object({ id: z.string(), deleted: z.boolean(), cancelledDeliveries: z.number().int() }),
  errors: ['not_found', 'insufficient_scope'],
  auth: webhookAuth('merchant:write'),
  http: { method: 'DELETE', path: '/v1/integration/webhooks/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, ctx) {
    return deleteWebhookSubscription(ctx, id);
  },
});
