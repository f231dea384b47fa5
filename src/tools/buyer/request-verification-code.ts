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
    'Emails the buyer a 6-digit code for one operation (`purpose`: save_card, create_agent, grant_permission, ' +
    'change_agent_card, raise_card_cap, verify_session to step a bounded session up in the consent view, or ' +
    'authorize_agent with `authorization`: the agent, card and limits the code will confirm, named in the e-mail and ' +
    'checked now (the session’s shop, the card, the limits)). Send ' +
    'the returned `challengeId` with the code in that operation. A code expires after 10 minutes, allows 5 attempts ' +
    'and works once. Full sessions only, except `verify_session` (bounded sessions: 403 forbidden for any other ' +
    'purpose); refused with 403 ' +
    'partner_origin_refused from a partner origin (the code is entered on this service’s own screen).',
  input: z.strictObject({
    purpose: Purpose,
    authorization: AgentAuthorizationIn.optional().describe('Only with purpose authorize_agent (required there): what the code authorizes.'),
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
