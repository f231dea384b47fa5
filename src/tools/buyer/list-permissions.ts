/** list_permissions: the buyer's permissions with what each agent spent in the current window. */
import { z } from 'zod';
import { listPermissions, permissionOut } from '../../domain/buyers/permissions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PermissionOut } from './schemas.ts';

export const listPermissionsTool = defineTool({
  name: 'list_permissions',
  title: 'List permissions',
  area: 'buyer',
  description:
    'Lists the buyer’s permissions, newest first, with status (active, expired, revoked), label, and what the agent ' +
    'spent and has left in the current window. A bounded session sees only its shop’s. Filter with `agentId`.',
  input: z.strictObject({
    agentId: z.string().min(1).max(100).optional().describe('Only this agent’s permissions (agt_…).'),
  }),
  output: z.object({ permissions: z.array(PermissionOut) }),
  errors: [],
  auth: { principals: ['buyer'] },
  http: { method: 'GET', path: '/v1/buyer/permissions' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    const now = ctx.clock.now();
    const rows = await listPermissions(ctx, input.agentId);
    return { permissions: await Promise.all(rows.map((p) => permissionOut(ctx.em, p, now))) };
  },
});
