/** What the ACP order-webhook tools share: the endpoint's wire shape. */
import { z } from 'zod';

export const AcpWebhookOut = z.object({
  id: z.string().describe('The subscription id (whk_…); its delivery log is list_webhook_deliveries with this id.'),
  url: z.string(),
  events: z.array(z.string().max(50)).describe('Always acp.order_create and acp.order_update.'),
  createdAt: z.string(),
});
