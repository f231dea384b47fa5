/** get_ucp_order (UCP `GET /orders/{id}`, the MCP binding's `get_order`): an order the platform placed, as UCP's. */
import { z } from 'zod';
import { negotiatedTransaction } from '../../domain/ucp/negotiation.ts';
import { getUcpOrder, UcpOrder } from '../../domain/ucp/orders.ts';
import { UCP_ORDER } from '../../domain/ucp/protocol.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { UCP_AUTH, UCP_ERRORS, UcpMeta } from './shared.ts';

export const getUcpOrderTool = defineTool({
  name: 'get_ucp_order',
  title: 'Get a UCP order',
  area: 'ucp',
  description:
    'Returns an order placed through a UCP checkout, as UCP’s order entity (the order webhook’s body): ' +
    '`{ meta, id }`. The platform profile must declare dev.ucp.shopping.order. Another platform’s or shop’s ' +
    'order is 404.',
  input: z.strictObject({ meta: UcpMeta, id: z.string().min(1).max(100).describe('The order id (ord_…).') }),
  output: UcpOrder,
  errors: [...UCP_ERRORS],
  auth: UCP_AUTH,
  http: { method: 'POST', path: '/v1/ucp/orders/{id}/get' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  transactional: false,
  async handler({ meta, id }, ctx) {
    return negotiatedTransaction(ctx, meta['ucp-agent'].profile, (tx) => getUcpOrder(tx, id), UCP_ORDER);
  },
});
