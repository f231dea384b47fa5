/** create_checkout (UCP `POST /checkout-sessions`): a UCP checkout session whose tickets are held on the spine. */
import { z } from 'zod';
import { createUcpCheckout } from '../../domain/ucp/checkout.ts';
import { UcpCheckout, UcpCheckoutCreate } from '../../domain/ucp/checkout-schema.ts';
import { negotiated } from '../../domain/ucp/negotiation.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { UCP_ANNOTATIONS, UCP_AUTH, UCP_ERRORS, UcpMeta, ucpIdempotency } from './shared.ts';

export const createCheckout = defineTool({
  name: 'create_checkout',
  title: 'Create a UCP checkout',
  area: 'ucp',
  description:
    'UCP (2026-04-08) checkout, MCP binding: `{ meta: { "ucp-agent": { profile } }, checkout: { line_items: ' +
    '[{ item: { id: "tier_…" }, quantity }], buyer?: { email } } }`. The tickets are held at once (status ' +
    'ready_for_complete), else status incomplete with a message saying why. Next: complete_checkout with a ' +
    'sandbox_card instrument.',
  input: z.strictObject({ meta: UcpMeta, checkout: UcpCheckoutCreate }),
  output: UcpCheckout,
  errors: [...UCP_ERRORS],
  auth: UCP_AUTH,
  http: { method: 'POST', path: '/v1/ucp/checkout-sessions', status: 201 },
  annotations: UCP_ANNOTATIONS,
  idempotency: 'optional',
  idempotencyRequest: ucpIdempotency(() => 'POST /checkout-sessions'),
  transactional: false,
  async handler({ meta, checkout }, ctx) {
    return negotiated(ctx, meta['ucp-agent'].profile, (tx) => createUcpCheckout(tx, checkout));
  },
});
