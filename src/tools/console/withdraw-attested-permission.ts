/** withdraw_attested_permission: an owner withdraws a permission attestation created, with a reason. */
import { z } from 'zod';
import { withdrawAttestedPermission } from '../../domain/buyers/attestation.ts';
import { permissionOut } from '../../domain/buyers/permissions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PermissionOut } from '../buyer/schemas.ts';

export const withdrawAttestedPermissionTool = defineTool({
  name: 'withdraw_attested_permission',
  title: 'Withdraw an attested permission',
  area: 'console',
  description:
    'Owners only: withdraws a permission that attested consent created in this organization, with a `reason`. The ' +
    'agent is refused from now on (permission_revoked). The rolling allowance is not replenished: what was spent ' +
    'stays counted against the per-buyer ceiling.',
  input: z.strictObject({
    id: z.string().min(1).max(100).describe('The permission (perm_…).'),
    reason: z.string().trim().min(1).max(500).describe('Why it is withdrawn (1 to 500 characters).'),
  }),
  output: PermissionOut,
  errors: ['not_found'],
  auth: { principals: ['console_user'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/console/attested-consent/permissions/{id}/revoke' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const p = await withdrawAttestedPermission(ctx, input.id, input.reason);
    return permissionOut(ctx.em, p, ctx.clock.now());
  },
});
