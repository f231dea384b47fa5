/** create_checkout_session (ACP `POST /checkout_sessions`): a session whose tickets are held on the spine. */
import { z } from 'zod';
import { CheckoutSessionCreateRequest } from '../../domain/acp/request-schemas.ts';
import { AcpCheckoutSession } from '../../domain/acp/session-schema.ts';
import { createSession } from '../../domain/acp/sessions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ACP_ANNOTATIONS, ACP_AUTH, ACP_ERRORS, AcpMeta, acpIdempotency, versionOf } from './shared.ts';

export const createCheckoutSession = defineTool({
  name: 'create_checkout_session',
  title: 'Create an ACP checkout session',
  area: 'acp',
  description:
    'ACP (2026-04-17) checkout, MCP binding: `{ meta: { api_version }, payload }` with a ' +
    'CheckoutSessionCreateRequest: one line item whose `id` is a tier (tier_…), optional `quantity`, the shop ' +
    '`currency`, `capabilities` ({} is fine). The tickets are held at once (ready_for_payment), else status ' +
    'not_ready_for_payment with a message. Next: delegate_payment, then complete_checkout_session.',
  input: z.strictObject({
    meta: AcpMeta,
    payload: CheckoutSessionCreateRequest.describe(
      'The ACP CheckoutSessionCreateRequest: line_items, currency, capabilities, optional buyer.',
    ),
  }),
  output: AcpCheckoutSession,
  errors: [...ACP_ERRORS],
  auth: ACP_AUTH,
  http: { method: 'POST', path: '/v1/acp/checkout_sessions', status: 201 },
  annotations: ACP_ANNOTATIONS,
  idempotency: 'optional',
  idempotencyRequest: acpIdempotency(() => 'POST /checkout_sessions'),
  // The session commits before its hold is made on the reserve batcher (src/domain/acp/session-hold.ts).
  transactional: false,
  async handler({ meta, payload }, ctx) {
    return createSession(ctx, versionOf(meta), payload);
  },
});
