/** complete_checkout_session (ACP `POST /checkout_sessions/{id}/complete`): pays with a delegated token, creates the order. */
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
    'Pays for a ready ACP checkout session and creates the order: `{ meta: { api_version, idempotency_key }, id, payload: ' +
    '{ buyer?, payment_data: { handler_id: "card_tokenized", instrument: { type: "card", credential: { type: "spt", ' +
    'token: "vt_…" } } } } }`. The token comes from delegate_payment; its allowance must cover this session: same ' +
    'checkout_session_id and merchant_id, same currency, total ≤ max_amount, not expired, not used (errors ' +
    'allowance_*, delegated_token_*). Returns status completed with `order` (permalink to the tickets), ' +
    'complete_in_progress while the provider confirms asynchronously (retrieve again later; do not pay again), or ' +
    'ready_for_payment with a payment_declined message (the tickets stay held; use another card). Send an idempotency key.',
  input: z.strictObject({ meta: AcpMeta, id: SessionId, payload: CheckoutSessionCompleteRequest }),
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
