/** redeliver_webhook_delivery: sends one delivery of the log again, with the same event id. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { redeliver } from '../../domain/merchants/webhook-subscriptions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DeliveryOut, webhookAuth } from './shared.ts';

export const redeliverWebhookDelivery = defineTool({
  name: 'redeliver_webhook_delivery',
  title: 'Redeliver a webhook delivery',
  area: 'integration',
  description:
    'Sends a delivered, failed or cancelled delivery again: it becomes pending, due at once, with a fresh retry ' +
    'schedule and the same event id (the webhook-id header), so a receiver that already has it can tell. A delivery ' +
    'still pending is already queued (delivery_pending). Requires merchant:write.',
  input: z.strictObject({
    id: IdRef.describe('The webhook id, e.g. whk_…'),
    deliveryId: z.string().min(1).max(100).describe('The delivery id, e.g. dlv_…'),
  }),
  output: DeliveryOut,
  errors: ['not_found', 'insufficient_scope', 'delivery_pending'],
  auth: webhookAuth('merchant:write'),
  http: { method: 'POST', path: '/v1/integration/webhooks/{id}/deliveries/{deliveryId}/redeliver' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handler(input, ctx) {
    return redeliver(ctx, input);
  },
});
