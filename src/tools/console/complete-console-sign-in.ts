/** complete_console_sign_in: redeem an emailed console link for a console session. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { secret } from '../../kernel/secret-fields.ts';
import { completeConsoleSignIn } from '../../domain/merchants/console-sign-in.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ConsoleSessionOut } from './team-schemas.ts';

export const completeConsoleSignInTool = defineTool({
  name: 'complete_console_sign_in',
  title: 'Complete console sign-in',
  area: 'console',
  description:
    'Public. Redeems the token of an emailed console sign-in link (once, within 15 minutes) and returns a console ' +
    'session with the role the person’s membership has, for `organizationId` or else their first organization. An ' +
    'unknown, used or expired token is sign_in_link_invalid.',
  input: z.strictObject({
    token: secret(z.string().min(20).max(200).describe('The token from the link’s #token= fragment.')),
    organizationId: IdRef.optional().describe(
      'The organization (org_…) to sign in to; default: the person’s first one.',
    ),
  }),
  output: ConsoleSessionOut,
  errors: ['sign_in_link_invalid', 'not_found'],
  auth: { public: true, listed: ['anonymous'] }, // a signed-in caller has no use for it
  http: { method: 'POST', path: '/v1/console/sign-in/complete' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  pageSession: { kind: 'console', effect: 'opens' }, // REST sets the page's cookie when asked (docs/console.md)
  rateLimit: 'strict',
  async handler({ token, organizationId }, ctx) {
    return completeConsoleSignIn(ctx, token, organizationId);
  },
});
