/** cancel_checkout_session (ACP `POST /checkout_sessions/{id}/cancel`): gives the held tickets back. */
import { z } from 'zod';
import { CancelSessionRequest } from '../../domain/acp/request-schemas.ts';
import { AcpCheckoutSession } from '../../domain/acp/session-schema.ts';
import { cancelSession } from '../../domain/acp/sessions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ACP_AUTH, ACP_ERRORS, AcpMeta, SessionId, acpIdempotency, versionOf } from './shared.ts';

export const cancelCheckoutSession = defineTool({
  name: 'cancel_checkout_session',
  title: 'Cancel an ACP checkout session',
  area: 'acp',
  description:
    'Cancels an ACP checkout session and gives its held tickets back: `{ meta: { api_version, idempotency_key? }, id, ' +
    'payload? }`, where the optional payload is an ACP CancelSessionRequest ({ intent_trace: { reason_code, ' +
    'trace_summary?, metadata? } }). 405 checkout_session_not_cancelable once the session is completed or canceled; ' +
    '409 payment_in_flight while a payment is being confirmed.',
  input: z.strictObject({ meta: AcpMeta, id: SessionId, payload: CancelSessionRequest.optional() }),
  output: AcpCheckoutSession,
  errors: [...ACP_ERRORS, 'checkout_session_not_cancelable', 'payment_in_flight'],
  auth: ACP_AUTH,
  http: { method: 'POST', path: '/v1/acp/checkout_sessions/{id}/cancel' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  idempotencyRequest: acpIdempotency(({ id }) => `POST /checkout_sessions/${id}/cancel`),
  async handler({ meta, id, payload }, ctx) {
    versionOf(meta);
    return cancelSession(ctx, id, payload ?? {});
  },
});
