/**
 * set_acp_webhook: where a shop's ACP order webhooks go (the agent platform's receiver) and the HMAC secret agreed with
 * it.
 */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { secret } from '../../kernel/secret-fields.ts';
import { setAcpWebhook as setEndpoint } from '../../domain/merchants/acp-webhook.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { AcpWebhookOut } from './acp-webhook-schemas.ts';
import { webhookAuth } from './shared.ts';

export const setAcpWebhook = defineTool({
  name: 'set_acp_webhook',
  title: 'Set the ACP order-webhook endpoint',
  area: 'integration',
  description:
    'Sets (or replaces) where the shop sends ACP order webhooks: the agent platform’s receiver `url` (https, ' +
    'public) and the HMAC `secret` it gave the merchant. order_create and order_update are POSTed with ACP’s ' +
    'Merchant-Signature header and retried like merchant webhooks. The secret is stored encrypted, never ' +
    'returned. Requires merchant:write.',
  input: z.strictObject({
    merchantId: IdRef.describe('The shop (merchant) id, e.g. shop_…'),
    url: z.string().trim().min(1).max(2048).describe('The agent platform’s order-events receiver URL.'),
    secret: secret(
      z
        .string()
        .min(16)
        .max(512)
        .describe('The shared HMAC secret agreed with the agent platform (16–512 characters).'),
    ),
  }),
  output: AcpWebhookOut.extend({ merchantId: z.string() }),
  errors: ['not_found', 'insufficient_scope', 'invalid_webhook_url'],
  auth: webhookAuth('merchant:write'),
  http: { method: 'PUT', path: '/v1/integration/shops/{merchantId}/acp-webhook' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // Not stored for replay: the request carries the secret.
  idempotency: 'none',
  async handler(input, ctx) {
    return { merchantId: input.merchantId, ...(await setEndpoint(ctx, input)) };
  },
});
