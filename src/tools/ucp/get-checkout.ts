/** get_checkout (UCP `GET /checkout-sessions/{id}`): the latest state of a UCP checkout session. */
import { z } from 'zod';
import { getUcpCheckout } from '../../domain/ucp/checkout.ts';
import { UcpCheckout } from '../../domain/ucp/checkout-schema.ts';
import { negotiatedTransaction } from '../../domain/ucp/negotiation.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { CheckoutId, UCP_AUTH, UCP_ERRORS, UcpMeta } from './shared.ts';

export const getCheckout = defineTool({
  name: 'get_checkout',
  title: 'Get a UCP checkout',
  area: 'ucp',
  description:
    'Returns a UCP checkout session: `{ meta, id }`. Status ready_for_complete while held, incomplete when the hold ' +
    'ran out (update it to hold again), complete_in_progress while a payment settles, completed (with `order`) or ' +
    'canceled. Another caller’s session is 404.',
  input: z.strictObject({ meta: UcpMeta, id: CheckoutId }),
  output: UcpCheckout,
  errors: [...UCP_ERRORS],
  auth: UCP_AUTH,
  http: { method: 'POST', path: '/v1/ucp/checkout-sessions/{id}/get' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  transactional: false,
  async handler({ meta, id }, ctx) {
    return negotiatedTransaction(ctx, meta['ucp-agent'].profile, (tx) => getUcpCheckout(tx, id));
  },
});
