/** invite_team_member: an owner invites someone by e-mail with a role. */
import { z } from 'zod';
import { inviteMember } from '../../domain/merchants/team.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { InvitationOut, RoleIn } from './team-schemas.ts';

export const inviteTeamMember = defineTool({
  name: 'invite_team_member',
  title: 'Invite a teammate',
  area: 'console',
  description:
    'Owner only. E-mails `email` a single-use invitation (7 days) to join the organization with `role` (owner or ' +
    'integrator); accepting it signs them in. A pending invitation to the same address is replaced. Someone already ' +
    'a member is already_member.',
  input: z.strictObject({
    email: z.email().max(254).describe('The email address to invite (up to 254 characters).'),
    role: RoleIn,
  }),
  output: InvitationOut,
  errors: ['already_member', 'limit_reached'],
  auth: { principals: ['console_user'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/console/team/invitations', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  transactional: false,
  async handler(input, ctx) {
    return inviteMember(ctx, input);
  },
});
