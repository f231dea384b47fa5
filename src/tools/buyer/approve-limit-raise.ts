/** approve_limit_raise: the buyer raises an agent's limits as it asked, after the emailed code. */
import { z } from 'zod';
import { approveLimitRaise, limitRaiseOut } from '../../domain/buyers/limit-raises.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { LimitRaiseOut, RequestId } from './limit-raise-schemas.ts';
import { CODE_PROOF_ERRORS, codeProof } from './schemas.ts';

export const approveLimitRaiseTool = defineTool({
  name: 'approve_limit_raise',
  title: 'Approve a limit-raise request',
  area: 'buyer',
  description:
    'Raises the permission’s per-purchase cap and allowance to the proposed ones, so the agent’s retried call ' +
    'proceeds. Needs a full session and the emailed code (purpose grant_permission). A request answered or expired ' +
    'is limit_raise_closed; another buyer’s is not_found.',
  input: z.strictObject({ id: RequestId, ...codeProof }),
  output: LimitRaiseOut,
  errors: ['not_found', 'limit_raise_closed', 'permission_revoked', 'permission_expired', ...CODE_PROOF_ERRORS],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/limit-raises/{id}/approve' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  transactional: false,
  async handler({ id, ...proof }, ctx) {
    const r = await approveLimitRaise(ctx, id, proof);
    return ctx.services.db.transaction((em) => limitRaiseOut(em, r, ctx.clock.now()));
  },
});
