/** delete_acp_webhook: stops a shop's ACP order webhooks; deliveries still waiting for an attempt are cancelled. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { deleteAcpWebhook as deleteEndpoint } from '../../domain/merchants/acp-webhook.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { webhookAuth } from './shared.ts';

export const deleteAcpWebhook = defineTool({
  name: 'delete_acp_webhook',
  title: 'Remove the ACP order-webhook endpoint',
  area: 'integration',
  description:
    'Removes the shop’s ACP order-webhook endpoint: no further order events are sent to the agent platform and ' +
    'deliveries waiting for a retry are cancelled. `deleted: false` when none was set. Requires merchant:write.',
  input: z.strictObject({ merchantId: IdRef.describe('The shop (merchant) id, e.g. shop_…') }),
  output: z.object({ merchantId: z.string(), deleted: z.boolean(), cancelledDeliveries: z.number().int() }),
  errors: ['not_found', 'insufficient_scope'],
  auth: webhookAuth('merchant:write'),
  http: { method: 'DELETE', path: '/v1/integration/shops/{merchantId}/acp-webhook' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ merchantId }, ctx) {
    return deleteEndpoint(ctx, merchantId);
  },
});
