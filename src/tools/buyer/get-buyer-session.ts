/** get_buyer_session: who the buyer session is for (mode, shop, language) — what the buyer pages render from. */
import { z } from 'zod';
import { describeBuyerSession } from '../../domain/buyers/sessions.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const getBuyerSession = defineTool({
  name: 'get_buyer_session',
  title: 'Describe the buyer session',
  area: 'buyer',
  description:
    'Describes the calling buyer session: the buyer, its e-mail, `mode` (`full` after e-mail sign-in, `bounded` when ' +
    'minted by a merchant: it acts only inside authority already granted), the shop it is for, whether it was minted ' +
    'with attested consent, and the language (the session’s, else the buyer’s own choice, else null: use the browser’s).',
  input: z.strictObject({}),
  output: z.object({
    buyerId: z.string(),
    email: z.string(),
    mode: z.enum(['bounded', 'full']),
    merchantId: z.string().nullable(),
    attested: z.boolean(),
    lang: z.string().nullable(),
  }),
  errors: [],
  auth: { principals: ['buyer'] },
  http: { method: 'GET', path: '/v1/buyer/session' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return describeBuyerSession(ctx);
  },
});
