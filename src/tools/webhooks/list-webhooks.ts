/** list_webhooks: a shop's live webhook subscriptions (never their signing secrets). */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { listWebhookSubscriptions } from '../../domain/merchants/webhook-subscriptions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { WebhookOut, webhookAuth } from './shared.ts';

export const listWebhooks = defineTool({
  name: 'list_webhooks',
  title: 'List webhooks',
  area: 'integration',
  description:
    'Lists the webhook subscriptions of a shop: URL, event types and creation time. Signing secrets are never ' +
    'returned after creation. Requires merchant:read.',
  input: z.strictObject({ merchantId: IdRef.describe('The shop (merchant) id, e.g. shop_…') }),
  output: z.object({ webhooks: z.array(WebhookOut) }),
  errors: ['not_found', 'insufficient_scope'],
  auth: webhookAuth('merchant:read'),
  http: { method: 'GET', path: '/v1/integration/webhooks' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ merchantId }, ctx) {
    return { webhooks: await listWebhookSubscriptions(ctx, merchantId) };
  },
});
