/** update_checkout_session (ACP `POST /checkout_sessions/{id}`): change buyer, fulfillment details or the item. */
import { z } from 'zod';
import { CheckoutSessionUpdateRequest } from '../../domain/acp/request-schemas.ts';
import { AcpCheckoutSession } from '../../domain/acp/session-schema.ts';
import { updateSession } from '../../domain/acp/sessions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ACP_ANNOTATIONS, ACP_AUTH, ACP_ERRORS, AcpMeta, SessionId, acpIdempotency, versionOf } from './shared.ts';

export const updateCheckoutSession = defineTool({
  name: 'update_checkout_session',
  title: 'Update an ACP checkout session',
  area: 'acp',
  description:
    'Updates an open ACP checkout session: `{ meta, id, payload }` with a CheckoutSessionUpdateRequest (buyer, ' +
    'fulfillment_details, line_items: one tier of the same shop, selected_fulfillment_options: digital_tickets). ' +
    'A new item, quantity or country, or an expired hold, holds the tickets again. 409 checkout_session_closed ' +
    'once completed or canceled.',
  input: z.strictObject({
    meta: AcpMeta,
    id: SessionId,
    payload: CheckoutSessionUpdateRequest.describe('The ACP CheckoutSessionUpdateRequest: only the fields to change.'),
  }),
  output: AcpCheckoutSession,
  errors: [...ACP_ERRORS, 'checkout_session_closed', 'payment_in_flight'],
  auth: ACP_AUTH,
  http: { method: 'POST', path: '/v1/acp/checkout_sessions/{id}' },
  annotations: ACP_ANNOTATIONS,
  idempotency: 'optional',
  idempotencyRequest: acpIdempotency(({ id }) => `POST /checkout_sessions/${id}`),
  // The session commits before its hold is made on the reserve batcher (src/domain/acp/session-hold.ts).
  transactional: false,
  async handler({ meta, id, payload }, ctx) {
    versionOf(meta);
    return updateSession(ctx, id, payload);
  },
});
