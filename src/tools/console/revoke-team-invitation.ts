/** revoke_team_invitation: an owner withdraws a pending invitation. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { revokeInvitation } from '../../domain/merchants/team.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { InvitationOut } from './team-schemas.ts';

export const revokeTeamInvitation = defineTool({
  name: 'revoke_team_invitation',
  title: 'Withdraw an invitation',
  area: 'console',
  description: 'Owner only. Withdraws a pending invitation; its link then answers invitation_invalid.',
  input: z.strictObject({ id: IdRef.describe('The invitation id (inv_…).') }),
  output: InvitationOut,
  errors: ['not_found'],
  auth: { principals: ['console_user'], roles: ['owner'] },
  http: { method: 'DELETE', path: '/v1/console/team/invitations/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler({ id }, ctx) {
    return revokeInvitation(ctx, id);
  },
});
