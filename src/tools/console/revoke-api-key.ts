/** revoke_api_key: revokes an API key of the organization (integrators: only keys they minted). */
import { z } from 'zod';
import { apiKeyOut, attestAvailable, revokeKey } from '../../domain/merchants/api-keys.ts';
import { ToolError } from '../../kernel/errors.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ApiKeyOut } from './api-key-schemas.ts';

export const revokeApiKey = defineTool({
  name: 'revoke_api_key',
  title: 'Revoke an API key',
  area: 'console',
  description:
    'Revokes an API key of the signed-in organization at once (its token answers 401 from now on). Integrators may revoke only keys they minted (403).',
  input: z.strictObject({ id: z.string().min(1).max(100).describe('The key (key_…).') }),
  output: ApiKeyOut,
  errors: ['not_found'],
  auth: { principals: ['console_user'], roles: ['owner', 'integrator'] },
  http: { method: 'POST', path: '/v1/console/api-keys/{id}/revoke' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    if (ctx.principal.kind !== 'console_user') throw new ToolError('forbidden');
    const key = await revokeKey(ctx.em, ctx.principal, input.id, ctx.clock.now(), ctx.events);
    return apiKeyOut(key, await attestAvailable(ctx.em, ctx.principal.organizationId));
  },
});
