/** update_checkout (UCP `PUT /checkout-sessions/{id}`): replaces the line item and buyer; holds again if needed. */
import { z } from 'zod';
import { updateUcpCheckout } from '../../domain/ucp/checkout.ts';
import { UcpCheckout, UcpCheckoutUpdate } from '../../domain/ucp/checkout-schema.ts';
import { negotiated } from '../../domain/ucp/negotiation.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { CheckoutId, UCP_ANNOTATIONS, UCP_AUTH, UCP_ERRORS, UcpMeta, ucpIdempotency } from './shared.ts';

export const updateCheckout = defineTool({
  name: 'update_checkout',
  title: 'Update a UCP checkout',
  area: 'ucp',
  description:
    'Replaces a UCP checkout session’s line item (one tier, its quantity) and buyer: `{ meta, id, checkout }`. The ' +
    'tickets are held again when the item or quantity changed or the hold ran out. 409 checkout_session_closed once ' +
    'completed or canceled.',
  input: z.strictObject({ meta: UcpMeta, id: CheckoutId, checkout: UcpCheckoutUpdate }),
  output: UcpCheckout,
  errors: [...UCP_ERRORS, 'checkout_session_closed', 'payment_in_flight'],
  auth: UCP_AUTH,
  http: { method: 'PUT', path: '/v1/ucp/checkout-sessions/{id}' },
  annotations: { ...UCP_ANNOTATIONS, idempotentHint: true },
  idempotency: 'optional',
  idempotencyRequest: ucpIdempotency(({ id }) => `PUT /checkout-sessions/${id}`),
  transactional: false,
  async handler({ meta, id, checkout }, ctx) {
    return negotiated(ctx, meta['ucp-agent'].profile, (tx) => updateUcpCheckout(tx, id, checkout));
  },
});
