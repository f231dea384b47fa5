/** pause_agent: pause an agent. */
import { z } from 'zod';
import { agentOut, setAgentStatus } from '../../domain/buyers/agents.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { AgentOut } from './schemas.ts';

export const pauseAgent = defineTool({
  name: 'pause_agent',
  title: 'Pause an agent',
  area: 'buyer',
  description:
    'Pauses an agent: its credential is refused (401) and any purchase in flight is refused with agent_paused, until it is resumed. Pausing twice is harmless.',
  input: z.strictObject({ id: z.string().min(1).max(100).describe('The agent (agt_…).') }),
  output: AgentOut,
  errors: ['not_found'],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/agents/{id}/pause' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    return agentOut(await setAgentStatus(ctx, input.id, 'pause'));
  },
});
