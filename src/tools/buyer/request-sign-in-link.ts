/** request_sign_in_link: emails a single-use, 15-minute sign-in link (optionally for a shop and in a language). */
import { z } from 'zod';
import { requestSignInLink } from '../../domain/buyers/sign-in.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Email, Lang } from './schemas.ts';

export const requestSignInLinkTool = defineTool({
  name: 'request_sign_in_link',
  title: 'Email a sign-in link',
  area: 'buyer',
  description:
    'Emails the buyer a single-use sign-in link that expires in 15 minutes. Give `merchantId` to sign in for a shop ' +
    '(the session can then save cards and grant permissions there) and `lang` for the e-mail and pages. The answer is ' +
    'the same whether or not the address is known. Refused with 403 partner_origin_refused from a partner origin: ' +
    'sign-in happens on this service’s own pages.',
  input: z.strictObject({
    email: Email,
    merchantId: z.string().min(1).max(100).optional().describe('The shop (shop_…) the buyer signs in for.'),
    lang: Lang.optional(),
    authorization: z
      .string()
      .max(64)
      .regex(/^[A-Za-z0-9_-]{8,64}$/)
      .optional()
      .describe(
        'The OAuth authorization the buyer is signing in to finish (its interaction id, from /buyer/authorize): the link returns there.',
      ),
    limitRaise: z
      .string()
      .max(44)
      .regex(/^lrr_[0-9a-z]{10,40}$/)
      .optional()
      .describe('The limit-raise request (lrr_…) the buyer is signing in to answer: the link returns to its page.'),
    offer: z
      .string()
      .max(44)
      .regex(/^rsv_[0-9a-z]{10,40}$/)
      .optional()
      .describe(
        'The waiting-list offer (reservation rsv_…) the buyer signs in for, at its shop: the link returns there.',
      ),
  }),
  output: z.object({ sent: z.literal(true), expiresAt: z.string() }),
  errors: ['not_found', 'partner_origin_refused', 'rate_limited', 'unavailable'],
  auth: { public: true, listed: ['anonymous'] }, // a signed-in caller has no use for it
  http: { method: 'POST', path: '/v1/buyer/sign-in-links', status: 202 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  transactional: false,
  rateLimit: 'strict',
  async handler(input, ctx) {
    return requestSignInLink(ctx, input);
  },
});
