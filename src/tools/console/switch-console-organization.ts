/** switch_console_organization: a console session for another organization the person belongs to. */
import { z } from 'zod';
import { openConsoleSession } from '../../domain/merchants/console-sign-in.ts';
import { ToolError } from '../../kernel/errors.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ConsoleSessionOut } from './team-schemas.ts';

export const switchConsoleOrganization = defineTool({
  name: 'switch_console_organization',
  title: 'Switch organization',
  area: 'console',
  description: 'Returns a new console session for another organization the signed-in person belongs to, with their role there.',
  input: z.strictObject({ organizationId: z.string().min(1) }),
  output: ConsoleSessionOut,
  errors: ['not_found'],
  auth: { principals: ['console_user'] },
  http: { method: 'POST', path: '/v1/console/session/organization' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ organizationId }, ctx) {
    if (ctx.principal.kind !== 'console_user') throw new ToolError('forbidden');
    return openConsoleSession(ctx, ctx.principal.userId, organizationId);
  },
});
