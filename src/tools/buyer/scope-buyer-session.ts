/** scope_buyer_session: a full session chooses its shop after signing in (the OAuth authorize page's shop step). */
import { z } from 'zod';
import { scopeSession } from '../../domain/buyers/session-scope.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { SessionOut } from './schemas.ts';

export const scopeBuyerSessionTool = defineTool({
  name: 'scope_buyer_session',
  title: 'Choose the shop of a session',
  area: 'buyer',
  description:
    'Exchanges a full session (signed in by e-mail, with or without a shop) for a full session of the same buyer for ' +
    'the shop `merchantId` (a discoverable shop, one the buyer holds or held a permission at, or the session’s own; ' +
    'else 404), ending when this one ends: cards are then saved and permissions granted in that shop. ' +
    'It widens nothing (a full session already sees all the buyer’s agents, cards and permissions). Bounded sessions ' +
    'stay bound to the shop that minted them (403).',
  input: z.strictObject({ merchantId: z.string().min(1).max(100).describe('The shop (shop_…), e.g. one of the discoverable shops.') }),
  output: SessionOut,
  errors: ['not_found'],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/session-scopes', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    return scopeSession(ctx, input.merchantId);
  },
});
