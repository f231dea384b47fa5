/** get_limit_raise: the buyer reads what one of their agents asks for (the limit-raise page). */
import { z } from 'zod';
import { getLimitRaise, limitRaiseOut } from '../../domain/buyers/limit-raises.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { LimitRaiseOut, RequestId } from './limit-raise-schemas.ts';

export const getLimitRaiseTool = defineTool({
  name: 'get_limit_raise',
  title: 'Read a limit-raise request',
  area: 'buyer',
  description:
    'One of the buyer’s limit-raise requests: the agent, the amount it needs, the permission’s limits now and the ' +
    'ones an approval sets, and whether it is still pending. Another buyer’s request is not_found.',
  input: z.strictObject({ id: RequestId }),
  output: LimitRaiseOut,
  errors: ['not_found'],
  auth: { principals: ['buyer'] },
  http: { method: 'GET', path: '/v1/buyer/limit-raises/{id}' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ id }, ctx) {
    return limitRaiseOut(ctx.em, await getLimitRaise(ctx, id), ctx.clock.now());
  },
});
