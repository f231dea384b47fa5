/** accept_team_invitation: join an organization from an emailed invitation and sign in. */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';
import { acceptInvitation } from '../../domain/merchants/team.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ConsoleSessionOut } from './team-schemas.ts';

export const acceptTeamInvitation = defineTool({
  name: 'accept_team_invitation',
  title: 'Accept an invitation',
  area: 'console',
  description:
    'Public. Accepts the token of an emailed team invitation (once, within 7 days, unless withdrawn): the person joins ' +
    'the organization with the invited role and gets a console session for it. Otherwise invitation_invalid.',
  input: z.strictObject({
    token: secret(z.string().min(20).max(200).describe('The token from the link’s #token= fragment.')),
  }),
  output: ConsoleSessionOut,
  errors: ['invitation_invalid', 'limit_reached'],
  auth: { public: true, listed: ['anonymous', 'console_user'] },
  http: { method: 'POST', path: '/v1/console/team/invitations/accept' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  pageSession: { kind: 'console', effect: 'opens' }, // REST sets the page's cookie when asked (docs/console.md)
  rateLimit: 'strict',
  async handler({ token }, ctx) {
    return acceptInvitation(ctx, token);
  },
});
