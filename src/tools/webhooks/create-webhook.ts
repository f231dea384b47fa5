/** create_webhook: subscribes a URL to a shop's events; the signing secret is returned here once and never again. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { secret } from '../../kernel/secret-fields.ts';
import { createWebhookSubscription } from '../../domain/merchants/webhook-subscriptions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { EventType, WebhookOut, webhookAuth } from './shared.ts';

export const createWebhook = defineTool({
  name: 'create_webhook',
  title: 'Create a webhook',
  area: 'integration',
  description:
    'Subscribes an HTTPS endpoint to events of a shop (e.g. order.completed). Deliveries follow Standard Webhooks: ' +
    'headers webhook-id, webhook-timestamp, webhook-signature (v1, HMAC-SHA256). The signing secret `whsec_…` is ' +
    'returned once: store it. `url`: https:// to a public address; loopback (http:// too) only with ' +
    'WEBHOOK_ALLOW_LOOPBACK=true. Requires merchant:write.',
  input: z.strictObject({
    merchantId: IdRef.describe('The shop (merchant) id, e.g. shop_…'),
    url: z.string().trim().min(1).max(2048).describe('Where deliveries are POSTed.'),
    events: z.array(EventType).min(1).max(50).describe('Event types to receive.'),
  }),
  output: WebhookOut.extend({
    secret: secret(z.string().describe('The signing secret (whsec_ + base64). Returned only in this response.')),
  }),
  errors: ['not_found', 'insufficient_scope', 'invalid_webhook_url', 'webhook_limit_reached'],
  auth: webhookAuth('merchant:write'),
  http: { method: 'POST', path: '/v1/integration/webhooks', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  // Not replayable: a stored response would keep the plaintext secret in the idempotency table.
  idempotency: 'none',
  async handler(input, ctx) {
    return createWebhookSubscription(ctx, input);
  },
});
