/** remove_team_member: an owner removes a member. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { removeMember } from '../../domain/merchants/team.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const removeTeamMember = defineTool({
  name: 'remove_team_member',
  title: 'Remove a member',
  area: 'console',
  description:
    'Owner only. Removes a member from the organization; their console sessions stop working at once and the API ' +
    'keys they minted in it are revoked (listed in revokedApiKeyIds). The last owner cannot be removed (last_owner).',
  input: z.strictObject({ userId: IdRef.describe('The member’s user id (usr_…).') }),
  output: z.object({
    userId: z.string(),
    removed: z.literal(true),
    removedAt: z.string(),
    revokedApiKeyIds: z.array(z.string()).describe('The API keys the member had minted here, revoked with them.'),
  }),
  errors: ['not_found', 'last_owner'],
  auth: { principals: ['console_user'], roles: ['owner'] },
  http: { method: 'DELETE', path: '/v1/console/team/members/{userId}' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async handler({ userId }, ctx) {
    return removeMember(ctx, userId);
  },
});
