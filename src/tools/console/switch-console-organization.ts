/** switch_console_organization: a console session for another organization the person belongs to. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { switchConsoleOrganization as switchOrganization } from '../../domain/merchants/console-sign-in.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ConsoleSessionOut } from './team-schemas.ts';

export const switchConsoleOrganization = defineTool({
  name: 'switch_console_organization',
  title: 'Switch organization',
  area: 'console',
  description:
    'Returns a new console session for another organization the signed-in person belongs to, with their role ' +
    'there. A session opened by accepting an invitation acts only in the inviting organization (403 forbidden ' +
    'elsewhere): sign in by e-mail to reach the others.',
  input: z.strictObject({
    organizationId: IdRef.describe('The organization (org_…) to act for; one you are a member of.'),
  }),
  output: ConsoleSessionOut,
  errors: ['not_found'],
  auth: { principals: ['console_user'] },
  http: { method: 'POST', path: '/v1/console/session/organization' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  pageSession: { kind: 'console', effect: 'opens' }, // REST sets the page's cookie when asked (docs/console.md)
  async handler({ organizationId }, ctx) {
    return switchOrganization(ctx, organizationId);
  },
});
