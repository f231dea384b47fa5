/** list_agents: the buyer's agents (a bounded session sees those holding a permission in its shop). */
import { z } from 'zod';
import { agentOut, listAgents } from '../../domain/buyers/agents.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { AgentOut } from './schemas.ts';

export const listAgentsTool = defineTool({
  name: 'list_agents',
  title: 'List agents',
  area: 'buyer',
  description:
    'Lists the buyer’s agents that are not deleted, with their status (active or paused) and credential kind. A ' +
    'bounded session sees only the agents holding a permission in its shop.',
  input: z.strictObject({}),
  output: z.object({ agents: z.array(AgentOut) }),
  errors: [],
  auth: { principals: ['buyer'] },
  http: { method: 'GET', path: '/v1/buyer/agents' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_input, ctx) {
    return { agents: (await listAgents(ctx)).map(agentOut) };
  },
});
