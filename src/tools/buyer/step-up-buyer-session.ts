/**
 * step_up_buyer_session: a bounded session and the emailed `verify_session` code give a full session (the consent
 * view).
 */
import { z } from 'zod';
import { stepUpSession } from '../../domain/buyers/session-step-up.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { CODE_PROOF_ERRORS, codeProof, SessionOut } from './schemas.ts';

export const stepUpBuyerSessionTool = defineTool({
  name: 'step_up_buyer_session',
  title: 'Verify a bounded session by code',
  area: 'buyer',
  description:
    'Exchanges a merchant-minted bounded session plus the code e-mailed for verify_session for a full session of ' +
    'the same buyer and shop (one hour), typed on this service’s own screen: how the consent view lets the buyer ' +
    'create an agent, save a card and grant a permission (each still needs its own code). Refused from a partner ' +
    'origin.',
  input: z.strictObject({ ...codeProof }),
  output: SessionOut,
  errors: [...CODE_PROOF_ERRORS, 'invalid_input'],
  auth: { principals: ['buyer'] },
  http: { method: 'POST', path: '/v1/buyer/session-step-ups', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  pageSession: { kind: 'buyer', effect: 'opens' }, // REST sets the page's cookie when asked (docs/console.md)
  transactional: false,
  rateLimit: 'strict',
  async handler(input, ctx) {
    return stepUpSession(ctx, input);
  },
});
