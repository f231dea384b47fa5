/** revoke_permission: the buyer ends a permission at once (narrowing authority: no code, bounded sessions too). */
import { z } from 'zod';
import { permissionOut, requireOwnPermission, revoke } from '../../domain/buyers/permissions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PermissionOut } from './schemas.ts';

export const revokePermission = defineTool({
  name: 'revoke_permission',
  title: 'Revoke a permission',
  area: 'buyer',
  description:
    'Revokes a permission: the agent’s next quote, reservation or payment under it is refused with ' +
    'permission_revoked. What was spent stays counted. Needs no code; a bounded session may revoke its shop’s.',
  input: z.strictObject({
    id: z.string().min(1).max(100).describe('The permission (perm_…).'),
    reason: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('Why it is revoked (1 to 500 characters; default buyer).'),
  }),
  output: PermissionOut,
  errors: ['not_found'],
  auth: { principals: ['buyer'] },
  http: { method: 'POST', path: '/v1/buyer/permissions/{id}/revoke' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const now = ctx.clock.now();
    const p = await requireOwnPermission(ctx.em, ctx, input.id);
    revoke(p, now, input.reason ?? 'buyer', 'buyer');
    await ctx.em.flush();
    return permissionOut(ctx.em, p, now);
  },
});
