/** get_console_session: the calling console session, as the console restores it after a reload. */
import { z } from 'zod';
import { ROLES } from '../../kernel/principal.ts';
import { describeConsoleSession } from '../../domain/merchants/console-sign-in.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ConsoleSessionOut } from './team-schemas.ts';

export const getConsoleSession = defineTool({
  name: 'get_console_session',
  title: 'Describe the console session',
  area: 'console',
  description:
    'Describes the calling console session: the person, the organization it acts for, their role there, the ' +
    'organizations they may switch to, and when the session ends. What the console reads at load to restore itself.',
  input: z.strictObject({}),
  output: ConsoleSessionOut.pick({ userId: true, email: true, organizationId: true, organizations: true }).extend({
    role: z.enum(ROLES),
    expiresAt: z.string().nullable().describe('When the session ends (RFC 3339); null when not known.'),
  }),
  errors: [],
  auth: { principals: ['console_user'] },
  http: { method: 'GET', path: '/v1/console/session' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return describeConsoleSession(ctx);
  },
});
