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
    'Mints a bounded buyer session (30 minutes) for `email` at shop `merchantId`, for a user your own sign-in ' +
    'verified. It acts only inside authority the buyer already granted (no agents, permissions or cards). ' +
    '`merchantAttested: true` (organizations staff enabled, key with mandates:attest) lets a permission be ' +
    'granted without the e-mailed code. Open the buyer pages at `/buyer/agents#session=<token>`.',
  input: z.strictObject({
    merchantId: z
      .string()
      .min(1)
      .max(100)
      .describe('The shop (shop_…) the session is bound to; a shop of the key’s organization.'),
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
