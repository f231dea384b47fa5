/** cancel_checkout (UCP `POST /checkout-sessions/{id}/cancel`): cancels the session and gives its tickets back. */
import { z } from 'zod';
import { cancelUcpCheckout } from '../../domain/ucp/checkout.ts';
import { UcpCheckout } from '../../domain/ucp/checkout-schema.ts';
import { negotiatedTransaction } from '../../domain/ucp/negotiation.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { CheckoutId, UCP_AUTH, UCP_ERRORS, UcpMeta, ucpIdempotency } from './shared.ts';

export const cancelCheckout = defineTool({
  name: 'cancel_checkout',
  title: 'Cancel a UCP checkout',
  area: 'ucp',
  description:
    'Cancels a UCP checkout session and gives its held tickets back: `{ meta, id }`. 405 ' +
    'checkout_session_not_cancelable once completed or canceled; 409 payment_in_flight while a payment settles.',
  input: z.strictObject({ meta: UcpMeta, id: CheckoutId }),
  output: UcpCheckout,
  errors: [...UCP_ERRORS, 'checkout_session_not_cancelable', 'payment_in_flight'],
  auth: UCP_AUTH,
  http: { method: 'POST', path: '/v1/ucp/checkout-sessions/{id}/cancel' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  idempotencyRequest: ucpIdempotency(({ id }) => `POST /checkout-sessions/${id}/cancel`),
  transactional: false,
  async handler({ meta, id }, ctx) {
    return negotiatedTransaction(ctx, meta['ucp-agent'].profile, (tx) => cancelUcpCheckout(tx, id));
  },
});
