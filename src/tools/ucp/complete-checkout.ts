/** complete_checkout (UCP `POST /checkout-sessions/{id}/complete`): pays with the sandbox handler, places the order. */
import { z } from 'zod';
import { completeUcpCheckout } from '../../domain/ucp/checkout.ts';
import { UcpCheckout, UcpCheckoutComplete } from '../../domain/ucp/checkout-schema.ts';
import { negotiate } from '../../domain/ucp/negotiation.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { CheckoutId, UCP_AUTH, UCP_ERRORS, UcpMeta, ucpIdempotency } from './shared.ts';

export const completeCheckout = defineTool({
  name: 'complete_checkout',
  title: 'Complete a UCP checkout',
  area: 'ucp',
  description:
    'Pays a ready UCP checkout: `{ meta: { "ucp-agent", "idempotency-key" }, id, checkout: { payment: ' +
    '{ instruments: [{ id, handler_id: "sandbox_card", type: "card", credential: { type: "sandbox_token", token: ' +
    '"pm_sandbox_visa" } }] } } }`. Returns completed with `order`, complete_in_progress while the provider ' +
    'confirms (get it again, never pay again), or ready_for_complete with payment_declined.',
  input: z.strictObject({ meta: UcpMeta, id: CheckoutId, checkout: UcpCheckoutComplete }),
  output: UcpCheckout,
  errors: [
    ...UCP_ERRORS,
    'checkout_session_closed',
    'checkout_session_not_ready',
    'payment_in_flight',
    'reservation_expired',
    'payment_handler_unsupported',
    'scheme_not_allowed',
    'unavailable',
    'invalid_webhook_url',
  ],
  auth: UCP_AUTH,
  http: { method: 'POST', path: '/v1/ucp/checkout-sessions/{id}/complete' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  idempotency: 'optional',
  idempotencyRequest: ucpIdempotency(({ id }) => `POST /checkout-sessions/${id}/complete`),
  transactional: false,
  async handler({ meta, id, checkout }, ctx) {
    const { orderWebhookUrl } = await negotiate(ctx, meta['ucp-agent'].profile);
    return completeUcpCheckout(ctx, id, checkout, orderWebhookUrl);
  },
});
