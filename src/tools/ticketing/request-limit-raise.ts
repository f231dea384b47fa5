/**
 * request_limit_raise: an agent refused for its buyer's limit asks the buyer to raise it (MCP answers a refusal with
 * URL elicitation through this tool; docs/protocols.md).
 */
import { z } from 'zod';
import { limitRaiseForAgent, requestLimitRaise } from '../../domain/buyers/limit-raises.ts';
import { Minor } from '../../kernel/wire.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { LimitRaiseForAgent } from '../buyer/limit-raise-schemas.ts';

export const requestLimitRaiseTool = defineTool({
  name: 'request_limit_raise',
  title: 'Ask the buyer to raise a limit',
  area: 'ticketing',
  description:
    'After over_purchase_cap or allowance_exhausted: asks the buyer to raise the permission so `amountMinor` fits. ' +
    'Give the buyer `url` (their own page, 15 minutes); retry the refused call once they approved. `declined`: ' +
    'the buyer said no; do not ask again now.',
  input: z.strictObject({
    permissionId: z.string().min(1).max(100).describe('The permission (perm_…) named in the refusal.'),
    amountMinor: Minor.describe('The purchase amount (minor units) named in the refusal.'),
  }),
  output: LimitRaiseForAgent,
  errors: ['not_found', 'permission_revoked', 'permission_expired'],
  // Not on tools lists: MCP asks for it itself on a refusal; an agent on REST or A2A may still call it.
  auth: { principals: ['agent'], listed: [] },
  http: { method: 'POST', path: '/v1/ticketing/limit-raises', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async handler(input, ctx) {
    return limitRaiseForAgent(ctx, await requestLimitRaise(ctx, input), ctx.clock.now());
  },
});
