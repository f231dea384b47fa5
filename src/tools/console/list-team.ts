/** list_team: the organization's members and pending invitations. */
import { z } from 'zod';
import { listTeam as teamOf } from '../../domain/merchants/team.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { InvitationOut, MemberOut } from './team-schemas.ts';

export const listTeam = defineTool({
  name: 'list_team',
  title: 'The team',
  area: 'console',
  description:
    'Owner only. Lists the organization’s members (owners first) with their roles, and the pending invitations.',
  input: z.strictObject({}),
  output: z.object({ members: z.array(MemberOut), invitations: z.array(InvitationOut) }),
  errors: [],
  auth: { principals: ['console_user'], roles: ['owner'] },
  http: { method: 'GET', path: '/v1/console/team' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return teamOf(ctx);
  },
});
