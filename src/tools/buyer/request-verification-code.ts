/** request_verification_code: emails the buyer a 6-digit code for one sensitive operation. */
import { z } from 'zod';
import { requestCodeFor } from '../../domain/buyers/agent-authorization.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { AgentAuthorizationIn, Purpose } from './schemas.ts';

export const requestVerificationCode = defineTool({
  name: 'request_verification_code',
  title: 'Email a verification code',
  area: 'buyer',
  description:
    'E-mails the buyer a 6-digit code for one operation (`purpose`: save_card, create_agent, grant_permission, ' +
    'change_agent_card, raise_card_cap, verify_session, or authorize_agent with `authorization`). Send the ' +
    'returned `challengeId` with the code in that operation: 10 minutes, 5 attempts, once. Full sessions only, ' +
    'except verify_session; refused from a partner origin (partner_origin_refused).',
  input: z.strictObject({
    purpose: Purpose,
    authorization: AgentAuthorizationIn.optional().describe(
      'Only with purpose authorize_agent (required there): what the code authorizes.',
    ),
  }),
  output: z.object({ challengeId: z.string(), expiresAt: z.string() }),
  errors: [
    'partner_origin_refused',
    'rate_limited',
    'unavailable',
    'forbidden',
    'invalid_input',
    'session_shop_required',
    'not_found',
    'instrument_not_found',
    'instrument_provider_mismatch',
    'card_setup_not_ready',
  ],
  auth: { principals: ['buyer'] },
  http: { method: 'POST', path: '/v1/buyer/verification-codes', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  transactional: false,
  rateLimit: 'strict',
  async handler(input, ctx) {
    return requestCodeFor(ctx, input.purpose, input.authorization);
  },
});
