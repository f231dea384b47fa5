/** mint_buyer_session: a merchant mints a BOUNDED buyer session for a user its own authentication verified. */
import { z } from 'zod';
import { mintBoundedSession } from '../../domain/buyers/mint-session.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Email, Lang, SessionOut } from '../buyer/schemas.ts';

export const mintBuyerSession = defineTool({
  name: 'mint_buyer_session',
  title: 'Mint a buyer session',
  area: 'integration',
  description:
    'Mints a bounded buyer session (30 minutes) for `email` at the shop `merchantId`, for a user the merchant’s own ' +
    'authentication verified. A bounded session acts only inside authority the buyer already granted: it can never ' +
    'create or widen spending authority (no agents, permissions or saved cards), whatever it sends. `lang` selects ' +
    'the buyer-page language. Needs merchant:write. `merchantAttested: true` is for organizations that staff enabled ' +
    'for attested consent, on a key holding mandates:attest (an attest-only key suffices): the buyer’s permission can ' +
    'then be granted without the emailed code within the staff-set ceilings; everyone else gets 403 ' +
    'merchant_consent_not_enabled. To open the buyer pages with the session, link to `/buyer/agents#session=<token>`.',
  input: z.strictObject({
    merchantId: z.string().min(1).max(100),
    email: Email,
    merchantAttested: z.boolean().optional().describe('Default false.'),
    lang: Lang.optional(),
  }),
  output: SessionOut,
  errors: ['not_found', 'insufficient_scope', 'merchant_consent_not_enabled'],
  auth: { principals: ['api_key'] },
  http: { method: 'POST', path: '/v1/integration/buyer-sessions', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(input, ctx) {
    return mintBoundedSession(ctx, input);
  },
});
