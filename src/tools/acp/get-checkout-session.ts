/** get_checkout_session (ACP `GET /checkout_sessions/{id}`): the latest authoritative session state. */
import { z } from 'zod';
import { AcpCheckoutSession } from '../../domain/acp/session-schema.ts';
import { requireSession, viewOf } from '../../domain/acp/sessions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ACP_AUTH, ACP_ERRORS, AcpMeta, SessionId, versionOf } from './shared.ts';

export const getCheckoutSession = defineTool({
  name: 'get_checkout_session',
  title: 'Retrieve an ACP checkout session',
  area: 'acp',
  description:
    'Returns an ACP checkout session: `{ meta: { api_version }, id }`. Status: ready_for_payment while held, ' +
    'expired once the hold ran out (update it to hold again), complete_in_progress while a payment settles, ' +
    'completed (with `order`) or canceled. Another caller’s session is 404.',
  input: z.strictObject({ meta: AcpMeta, id: SessionId }),
  output: AcpCheckoutSession,
  errors: [...ACP_ERRORS],
  auth: ACP_AUTH,
  http: { method: 'POST', path: '/v1/acp/checkout_sessions/{id}/retrieve' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ meta, id }, ctx) {
    versionOf(meta);
    return viewOf(ctx, await requireSession(ctx, id));
  },
});
