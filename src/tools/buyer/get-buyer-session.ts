/** get_buyer_session: who the buyer session is for (mode, shop, language) — what the buyer pages render from. */
import { z } from 'zod';
import { buyerOf } from '../../buyers/sessions.ts';
import { ToolError } from '../../orchestrator/errors.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Buyer } from '../../storage/entities/buyer.ts';

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
    const p = buyerOf(ctx);
    const buyer = await ctx.em.findOne(Buyer, { id: p.buyerId });
    if (!buyer) throw new ToolError('unauthenticated', 'The buyer of this session no longer exists.');
    return { buyerId: buyer.id, email: buyer.email, mode: p.mode, merchantId: p.merchantId, attested: p.attested === true, lang: p.lang ?? buyer.lang ?? null };
  },
});
