/** change_team_member_role: an owner changes a member's role. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { changeMemberRole } from '../../domain/merchants/team.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { MemberOut, RoleIn } from './team-schemas.ts';

export const changeTeamMemberRole = defineTool({
  name: 'change_team_member_role',
  title: 'Change a member’s role',
  area: 'console',
  description:
    'Owner only. Sets a member’s role (owner or integrator). A demotion applies to their open sessions at once; a ' +
    'promotion from their next sign-in. The API keys they minted act with their current role at once (a demoted ' +
    'owner’s keys lose merchant:admin, mandates:attest and the owner-only operations). The last owner cannot be ' +
    'demoted (last_owner).',
  input: z.strictObject({ userId: IdRef.describe('The member’s user id (usr_…).'), role: RoleIn }),
  output: MemberOut,
  errors: ['not_found', 'last_owner'],
  auth: { principals: ['console_user'], roles: ['owner'] },
  http: { method: 'PATCH', path: '/v1/console/team/members/{userId}' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ userId, role }, ctx) {
    return changeMemberRole(ctx, userId, role);
  },
});
