/** delete_agent: deletes an agent for good: its credential is refused and its permissions are revoked. */
import { z } from 'zod';
import { agentOut, setAgentStatus } from '../../domain/buyers/agents.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { AgentOut } from './schemas.ts';

export const deleteAgent = defineTool({
  name: 'delete_agent',
  title: 'Delete an agent',
  area: 'buyer',
  description:
    'Deletes an agent: its credential is refused from now on (401) and its live permissions are revoked ' +
    '(reason agent_deleted). What it spent stays counted. Full sessions only.',
  input: z.strictObject({ id: z.string().min(1).max(100).describe('The agent (agt_…).') }),
  output: AgentOut,
  errors: ['not_found'],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'DELETE', path: '/v1/buyer/agents/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    return agentOut(await setAgentStatus(ctx, input.id, 'delete'));
  },
});
