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
    'Exchanges a full session for a full session of the same buyer for shop `merchantId` (discoverable, or one ' +
    'the buyer holds or held a permission at; else 404), ending when this one ends, so cards are saved and ' +
    'permissions granted there. It widens nothing. Bounded sessions stay bound to their shop (403).',
  input: z.strictObject({
    merchantId: z.string().min(1).max(100).describe('The shop (shop_…), e.g. one of the discoverable shops.'),
  }),
  output: SessionOut,
  errors: ['not_found'],
  auth: { principals: ['buyer'], fullBuyer: true },
  http: { method: 'POST', path: '/v1/buyer/session-scopes', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  pageSession: { kind: 'buyer', effect: 'opens' }, // REST sets the page's cookie when asked (docs/console.md)
  async handler(input, ctx) {
    return scopeSession(ctx, input.merchantId);
  },
});
