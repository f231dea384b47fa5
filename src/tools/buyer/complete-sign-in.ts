/** complete_sign_in: redeems an emailed sign-in link's token for a FULL buyer session. */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';
import { completeSignIn } from '../../domain/buyers/sign-in.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { SessionOut } from './schemas.ts';

export const completeSignInTool = defineTool({
  name: 'complete_sign_in',
  title: 'Complete sign-in',
  area: 'buyer',
  description:
    'Exchanges the token from an emailed sign-in link (the `#token=` fragment of the link) for a full buyer session: ' +
    'a bearer JWT for the shop the link was asked for, valid one hour. The link works once (422 ' +
    'sign_in_link_invalid afterwards or once expired). Keep the bearer in memory; never store it in a cookie. ' +
    'Refused with 403 partner_origin_refused from a partner origin.',
  input: z.strictObject({
    token: secret(z.string().min(20).max(200).describe('The token from the sign-in link’s #token= fragment.')),
  }),
  output: SessionOut,
  errors: ['sign_in_link_invalid', 'partner_origin_refused'],
  auth: { public: true, listed: ['anonymous'] }, // a signed-in caller has no use for it
  http: { method: 'POST', path: '/v1/buyer/sessions', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  pageSession: { kind: 'buyer', effect: 'opens' }, // REST sets the page's cookie when asked (docs/console.md)
  rateLimit: 'strict',
  async handler(input, ctx) {
    return completeSignIn(ctx, input.token);
  },
});
