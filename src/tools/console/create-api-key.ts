/** create_api_key: a console owner or integrator creates an API key for the organization (token shown once). */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';
import { apiKeyOut, createKey } from '../../domain/merchants/api-keys.ts';
import { ToolError } from '../../kernel/errors.ts';
import { SCOPES } from '../../kernel/principal.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ApiKeyOut } from './api-key-schemas.ts';

export const createApiKey = defineTool({
  name: 'create_api_key',
  title: 'Create an API key',
  area: 'console',
  description:
    'Creates an API key for the signed-in organization with exactly the scopes requested; `token` is shown only ' +
    'in this answer. Integrators may never grant merchant:admin or mandates:attest (403 forbidden). ' +
    '`mandates:attest` is held alone (an attest-only key) and only by organizations enabled for attested consent ' +
    '(403 merchant_consent_not_enabled otherwise). The key acts with no more than its creator’s current role: an ' +
    'integrator’s key cannot call the owner-only operations (refunds, event cancellation, catalog and shop ' +
    'settings), a demoted creator’s key loses the owner’s scopes, and it stops working when its creator leaves ' +
    'the organization.',
  input: z.strictObject({ name: z.string().trim().min(1).max(100), scopes: z.array(z.enum(SCOPES)).min(1).max(4) }),
  output: z.object({ apiKey: ApiKeyOut, token: secret(z.string().describe('The secret bearer (tsk_…), shown once.')) }),
  errors: ['merchant_consent_not_enabled'],
  auth: { principals: ['console_user'], roles: ['owner', 'integrator'] },
  http: { method: 'POST', path: '/v1/console/api-keys', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(input, ctx) {
    if (ctx.principal.kind !== 'console_user') throw new ToolError('forbidden');
    const { key, issued } = await createKey(ctx.em, ctx.principal, input, ctx.clock.now());
    const enabled = key.scopes.includes('mandates:attest');
    return { apiKey: apiKeyOut(key, enabled), token: issued.token };
  },
});
