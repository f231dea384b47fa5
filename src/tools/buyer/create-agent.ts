/** create_agent: a full buyer session creates an agent (token issued once) or registers one that brings its own key. */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';
import { createAgent } from '../../domain/buyers/agents.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { AgentOut, CODE_PROOF_ERRORS, codeProof, PublicJwk } from './schemas.ts';

export const createAgentTool = defineTool({
  name: 'create_agent',
  title: 'Create or register an agent',
  area: 'buyer',
  description:
    'Creates an agent that buys for the buyer inside the permissions granted to it. Without `publicKeyJwk` the ' +
    'service issues `token` (tag_…, shown only here); with one (Ed25519 or P-256) the agent signs short JWTs (iss ' +
    '= sub = agent id, aud = this service). Needs a full session and the e-mailed code (purpose create_agent).',
  input: z.strictObject({
    name: z.string().trim().min(1).max(100).describe('A name for the agent, shown to the buyer (1 to 100 characters).'),
    publicKeyJwk: PublicJwk.optional(),
    ...codeProof,
  }),
  output: z.object({
    agent: AgentOut,
    token: secret(z.string().nullable().describe('The issued credential, shown once; null for brought agents.')),
  }),
  errors: ['limit_reached', ...CODE_PROOF_ERRORS],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/agents', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  transactional: false,
  async handler(input, ctx) {
    return createAgent(ctx, input);
  },
});
