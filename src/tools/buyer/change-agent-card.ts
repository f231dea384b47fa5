/** change_agent_card: switches the saved card an agent's live permission in the session's shop charges. */
import { z } from 'zod';
import { changeAgentCard, permissionOut } from '../../domain/buyers/permissions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { CODE_PROOF_ERRORS, codeProof, PermissionOut } from './schemas.ts';

export const changeAgentCardTool = defineTool({
  name: 'change_agent_card',
  title: 'Change an agent’s card',
  area: 'buyer',
  description:
    'Makes the agent’s live permission in this session’s shop charge another saved card of the buyer (saved for this ' +
    'shop and payment connection, else 409 instrument_provider_mismatch). Needs a full session and the emailed code ' +
    '(purpose change_agent_card).',
  input: z.strictObject({
    id: z.string().min(1).max(100).describe('The agent (agt_…).'),
    instrumentId: z
      .string()
      .min(1)
      .max(100)
      .describe('The saved card (ins_…) the agent’s purchases are charged to from now on.'),
    ...codeProof,
  }),
  output: PermissionOut,
  errors: [
    'permission_missing',
    'instrument_not_found',
    'instrument_provider_mismatch',
    'session_shop_required',
    ...CODE_PROOF_ERRORS,
  ],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/agents/{id}/card' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  transactional: false,
  async handler(input, ctx) {
    const permission = await changeAgentCard(ctx, input.id, input);
    return permissionOut(ctx.em, permission, ctx.clock.now());
  },
});
