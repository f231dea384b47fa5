/**
 * complete_checkout_session (ACP `POST /checkout_sessions/{id}/complete`): pays with a delegated token, creates the
 * order.
 */
import { z } from 'zod';
import { completeSession } from '../../domain/acp/complete.ts';
import { CheckoutSessionCompleteRequest } from '../../domain/acp/request-schemas.ts';
import { AcpCheckoutSession } from '../../domain/acp/session-schema.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ACP_AUTH, ACP_ERRORS, AcpMeta, SessionId, acpIdempotency, versionOf } from './shared.ts';

export const completeCheckoutSession = defineTool({
  name: 'complete_checkout_session',
  title: 'Complete an ACP checkout session',
  area: 'acp',
  description:
    'Pays for a ready ACP checkout session: `{ meta, id, payload: { payment_data } }` with the `vt_…` token from ' +
    'delegate_payment, whose allowance must cover this session (allowance_*, delegated_token_* otherwise). ' +
    'Returns completed with `order`, complete_in_progress while the provider confirms (get it again; do not pay ' +
    'again), or ready_for_payment with payment_declined (still held).',
  input: z.strictObject({
    meta: AcpMeta,
    id: SessionId,
    payload: CheckoutSessionCompleteRequest.describe(
      'The ACP CheckoutSessionCompleteRequest: payment_data with the delegated token, optional buyer.',
    ),
  }),
  output: AcpCheckoutSession,
  errors: [
    ...ACP_ERRORS,
    'checkout_session_closed',
    'checkout_session_not_ready',
    'payment_in_flight',
    'reservation_expired',
    'payment_handler_unsupported',
    'delegated_token_invalid',
    'delegated_token_used',
    'allowance_expired',
    'allowance_amount_exceeded',
    'allowance_currency_mismatch',
    'allowance_session_mismatch',
    'allowance_merchant_mismatch',
    'scheme_not_allowed',
    'unavailable',
  ],
  auth: ACP_AUTH,
  http: { method: 'POST', path: '/v1/acp/checkout_sessions/{id}/complete' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  idempotency: 'optional',
  idempotencyRequest: acpIdempotency(({ id }) => `POST /checkout_sessions/${id}/complete`),
  transactional: false,
  async handler({ meta, id, payload }, ctx) {
    versionOf(meta);
    return completeSession(ctx, id, payload);
  },
});
