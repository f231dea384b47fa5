/** resume_agent: resume an agent. */
import { z } from 'zod';
import { agentOut, setAgentStatus } from '../../domain/buyers/agents.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { AgentOut } from './schemas.ts';

export const resumeAgent = defineTool({
  name: 'resume_agent',
  title: 'Resume an agent',
  area: 'buyer',
  description:
    'Resumes a paused agent: its credential works again inside its permissions. Full sessions only (it restores authority).',
  input: z.strictObject({ id: z.string().min(1).max(100).describe('The agent (agt_…).') }),
  output: AgentOut,
  errors: ['not_found'],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/agents/{id}/resume' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    return agentOut(await setAgentStatus(ctx, input.id, 'resume'));
  },
});
