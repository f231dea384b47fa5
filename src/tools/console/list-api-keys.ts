/** list_api_keys: the organization's API keys, last use, and whether attest keys are available to it. */
import { z } from 'zod';
import { listKeys } from '../../domain/merchants/api-keys.ts';
import { ToolError } from '../../kernel/errors.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ApiKeyOut } from './api-key-schemas.ts';

export const listApiKeys = defineTool({
  name: 'list_api_keys',
  title: 'List API keys',
  area: 'console',
  description:
    'Lists the signed-in organization’s API keys, newest first, with scopes, state and last use (`lastUsedAt: null` ' +
    'shows as "No usage recorded"). `attestAvailable` says whether the organization may hold attest-only keys.',
  input: z.strictObject({}),
  output: z.object({ apiKeys: z.array(ApiKeyOut), attestAvailable: z.boolean() }),
  errors: [],
  auth: { principals: ['console_user'], roles: ['owner', 'integrator'] },
  http: { method: 'GET', path: '/v1/console/api-keys' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    if (ctx.principal.kind !== 'console_user') throw new ToolError('forbidden');
    return listKeys(ctx.em, ctx.principal.organizationId);
  },
});
