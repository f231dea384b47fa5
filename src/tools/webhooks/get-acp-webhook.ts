/** get_acp_webhook: a shop's ACP order-webhook endpoint (never its secret). */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { getAcpWebhook as getEndpoint } from '../../domain/merchants/acp-webhook.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { AcpWebhookOut } from './acp-webhook-schemas.ts';
import { webhookAuth } from './shared.ts';

export const getAcpWebhook = defineTool({
  name: 'get_acp_webhook',
  title: 'Read the ACP order-webhook endpoint',
  area: 'integration',
  description:
    'The shop’s ACP order-webhook endpoint (set with set_acp_webhook), or `webhook: null` when none is set. The shared ' +
    'secret is never shown. Requires merchant:read.',
  input: z.strictObject({ merchantId: IdRef.describe('The shop (merchant) id, e.g. shop_…') }),
  output: z.object({ merchantId: z.string(), webhook: AcpWebhookOut.nullable() }),
  errors: ['not_found', 'insufficient_scope'],
  auth: webhookAuth('merchant:read'),
  http: { method: 'GET', path: '/v1/integration/shops/{merchantId}/acp-webhook' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ merchantId }, ctx) {
    return getEndpoint(ctx, merchantId);
  },
});
