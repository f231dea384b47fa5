/** send_test_webhook_event: sends a signed `webhook.test` event to one subscription; it shows in the delivery log. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { sendTestEvent } from '../../domain/merchants/webhook-subscriptions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DeliveryOut, webhookAuth } from './shared.ts';

export const sendTestWebhookEvent = defineTool({
  name: 'send_test_webhook_event',
  title: 'Send a test webhook event',
  area: 'integration',
  description:
    'Sends a `webhook.test` event (data: { webhookId, merchantId, test: true }) to this subscription only, whatever ' +
    'event types it lists, signed and retried like every delivery. Answers the new delivery, due at once; follow it ' +
    'with `list_webhook_deliveries`. Requires merchant:write.',
  input: z.strictObject({ id: IdRef.describe('The webhook id, e.g. whk_…') }),
  output: DeliveryOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: webhookAuth('merchant:write'),
  http: { method: 'POST', path: '/v1/integration/webhooks/{id}/test', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  idempotency: 'optional',
  async handler({ id }, ctx) {
    return sendTestEvent(ctx, id);
  },
});
