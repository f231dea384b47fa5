/** decline_limit_raise: the buyer refuses what an agent asked for (narrowing: no code). */
import { z } from 'zod';
import { declineLimitRaise, limitRaiseOut } from '../../domain/buyers/limit-raises.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { LimitRaiseOut, RequestId } from './limit-raise-schemas.ts';

export const declineLimitRaiseTool = defineTool({
  name: 'decline_limit_raise',
  title: 'Decline a limit-raise request',
  area: 'buyer',
  description:
    'Declines the request: the limits stay, the agent’s retried call gets its limit error again and it is not asked ' +
    'again for 15 minutes. Needs no code. A request answered or expired is limit_raise_closed.',
  input: z.strictObject({ id: RequestId }),
  output: LimitRaiseOut,
  errors: ['not_found', 'limit_raise_closed'],
  auth: { principals: ['buyer'] },
  http: { method: 'POST', path: '/v1/buyer/limit-raises/{id}/decline' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler({ id }, ctx) {
    return limitRaiseOut(ctx.em, await declineLimitRaise(ctx, id), ctx.clock.now());
  },
});
