/** get_webhook_delivery: one delivery of a webhook's log with the request sent and the response recorded. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { deliveryDetail } from '../../domain/merchants/webhook-delivery-detail.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DeliveryOut, webhookAuth } from './shared.ts';

export const getWebhookDelivery = defineTool({
  name: 'get_webhook_delivery',
  title: 'A webhook delivery’s request and response',
  area: 'integration',
  description:
    'One delivery of a webhook’s log with its request (method, URL, the headers that stay the same on every ' +
    'attempt, and the exact JSON body POSTed) and its response (the last attempt’s HTTP status, or why it failed, ' +
    'and when). The per-attempt webhook-timestamp and webhook-signature headers and response bodies are not kept. ' +
    'Requires merchant:read.',
  input: z.strictObject({
    id: IdRef.describe('The webhook id, e.g. whk_…'),
    deliveryId: z.string().min(1).max(100).describe('The delivery id, e.g. dlv_…'),
  }),
  output: z.object({
    delivery: DeliveryOut,
    request: z.object({
      method: z.literal('POST'),
      url: z.string(),
      headers: z.record(z.string(), z.string()).describe('The headers every attempt carries.'),
      body: z.string().describe('The JSON body as sent, byte for byte.'),
    }),
    response: z.object({
      status: z.number().int().nullable().describe('The last attempt’s HTTP status; null when none answered.'),
      error: z.string().nullable().describe('Why the last attempt failed, in short; null when it succeeded.'),
      at: z.string().nullable().describe('When the last attempt was made; null before the first.'),
    }),
  }),
  errors: ['not_found', 'insufficient_scope'],
  auth: webhookAuth('merchant:read'),
  http: { method: 'GET', path: '/v1/integration/webhooks/{id}/deliveries/{deliveryId}' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    return deliveryDetail(ctx, input);
  },
});
