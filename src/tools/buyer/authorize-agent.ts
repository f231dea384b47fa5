/**
 * authorize_agent: one emailed code creates an agent and grants its permission (and saves a card just entered), in one
 * step.
 */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';
import { agentOut } from '../../domain/buyers/agents.ts';
import { authorizeAgent } from '../../domain/buyers/agent-authorization.ts';
import { instrumentOut } from '../../domain/buyers/instruments.ts';
import { permissionOut } from '../../domain/buyers/permissions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import {
  AgentAuthorizationIn,
  AgentOut,
  CODE_PROOF_ERRORS,
  codeProof,
  InstrumentOut,
  PermissionOut,
} from './schemas.ts';

export const authorizeAgentTool = defineTool({
  name: 'authorize_agent',
  title: 'Authorize a new agent in one step',
  area: 'buyer',
  description:
    'Creates agent `name` and grants it a permission in this session’s shop with ONE e-mailed code: ' +
    'request_verification_code (purpose authorize_agent, `authorization` = these details), then this call with ' +
    '`challengeId` and `code`. The card is a saved card (`instrumentId`) or a succeeded card setup (`setupId`). ' +
    'The agent’s `token` is shown only here. Full sessions only (docs/oauth.md).',
  input: z.strictObject({ ...AgentAuthorizationIn.shape, ...codeProof }),
  output: z.object({
    agent: AgentOut,
    token: secret(z.string().nullable().describe('The agent’s issued credential, shown once.')),
    permission: PermissionOut,
    instrument: InstrumentOut.describe('The card the permission charges.'),
    cardSaved: z.boolean().describe('True when the card was saved by this call (from `setupId`).'),
  }),
  errors: [
    'limit_reached',
    'invalid_input',
    'session_shop_required',
    'not_found',
    'instrument_not_found',
    'instrument_provider_mismatch',
    'card_setup_not_ready',
    ...CODE_PROOF_ERRORS,
    'verification_code_mismatch',
  ],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/agent-authorizations', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  transactional: false,
  async handler(input, ctx) {
    const done = await authorizeAgent(ctx, input);
    return {
      agent: agentOut(done.agent),
      token: done.token,
      permission: await permissionOut(ctx.em, done.permission, ctx.clock.now()),
      instrument: instrumentOut(done.instrument),
      cardSaved: done.cardSaved,
    };
  },
});
