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
    'Agentic Commerce Protocol (2026-04-17) checkout, MCP binding: `{ meta: { api_version, idempotency_key? }, payload }` ' +
    'where payload is an ACP CheckoutSessionCreateRequest. `line_items` holds exactly one item whose `id` is a ticket ' +
    'tier (tier_…) with an optional `quantity` (a deviation: ACP request items have none; default 1); `currency` must be ' +
    'the shop currency; `capabilities` is required ({} is fine). The tickets are held at once (status ready_for_payment, ' +
    'expires_at = end of the hold); when they cannot be (sold out, not on sale, region) the session is still created with ' +
    'status not_ready_for_payment and an error in `messages`. Next: delegate_payment for a token bound to this session ' +
    'and merchant (capabilities.payment.handlers[0].config.merchant_id), then complete_checkout_session.',
  input: z.strictObject({ meta: AcpMeta, payload: CheckoutSessionCreateRequest }),
  output: AcpCheckoutSession,
  errors: [...ACP_ERRORS],
  auth: ACP_AUTH,
  http: { method: 'POST', path: '/v1/acp/checkout_sessions', status: 201 },
  annotations: ACP_ANNOTATIONS,
  idempotency: 'optional',
  idempotencyRequest: acpIdempotency(() => 'POST /checkout_sessions'),
  async handler({ meta, payload }, ctx) {
    return createSession(ctx, versionOf(meta), payload);
  },
});
