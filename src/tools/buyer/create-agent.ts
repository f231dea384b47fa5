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
    'Creates an agent that can buy for the buyer inside the permissions the buyer grants it. Without `publicKeyJwk` ' +
    'the service issues its credential: `token` (tag_…), shown only in this answer, used as a bearer. With ' +
    '`publicKeyJwk` (Ed25519 or P-256) the agent brings its own key and authenticates with a JWT it signs ' +
    '(iss = sub = the agent id, aud = this service’s URL, exp at most 5 minutes ahead). Needs a full session and the ' +
    'emailed code (purpose create_agent); bounded sessions are refused.',
  input: z.strictObject({ name: z.string().trim().min(1).max(100), publicKeyJwk: PublicJwk.optional(), ...codeProof }),
  output: z.object({ agent: AgentOut, token: secret(z.string().nullable().describe('The issued credential, shown once; null for brought agents.')) }),
  errors: [...CODE_PROOF_ERRORS],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/agents', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  transactional: false,
  async handler(input, ctx) {
    return createAgent(ctx, input);
  },
});

