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
    'Creates an API key for the signed-in organization with the scopes requested; `token` is shown only here. ' +
    'Integrators may not grant merchant:admin or mandates:attest; mandates:attest is held alone, by organizations ' +
    'enabled for attested consent. The key acts with no more than its creator’s current role and stops when the ' +
    'creator leaves.',
  input: z.strictObject({
    name: z.string().trim().min(1).max(100).describe('A name for the key (1 to 100 characters).'),
    scopes: z
      .array(z.enum(SCOPES))
      .min(1)
      .max(4)
      .describe('What the key may do: merchant:read, merchant:write, merchant:admin, mandates:attest.'),
  }),
  output: z.object({ apiKey: ApiKeyOut, token: secret(z.string().describe('The secret bearer (tsk_…), shown once.')) }),
  errors: ['merchant_consent_not_enabled', 'limit_reached'],
  auth: { principals: ['console_user'], roles: ['owner', 'integrator'] },
  http: { method: 'POST', path: '/v1/console/api-keys', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(input, ctx) {
    if (ctx.principal.kind !== 'console_user') throw new ToolError('forbidden');
    const { key, issued } = await createKey(ctx.em, ctx.principal, input, ctx.clock.now(), ctx.events);
    const enabled = key.scopes.includes('mandates:attest');
    return { apiKey: apiKeyOut(key, enabled), token: issued.token };
  },
});
