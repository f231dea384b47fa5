/** join_waiting_list: wait for places of a sold-out tier; an offer (a real hold) comes when places come back. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { joinWaitingList as join } from '../../domain/purchase/waiting-list.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Email, Lang } from '../buyer/schemas.ts';
import { WaitingListEntryOut } from './waiting-list-schemas.ts';

export const joinWaitingList = defineTool({
  name: 'join_waiting_list',
  title: 'Join a tier’s waiting list',
  area: 'ticketing',
  description:
    'After `sold_out` with `details.waitingList`: waits for `quantity` places of the tier. When places come back, ' +
    'the first in line gets an offer: a held reservation (`offer.reservationId`) to `confirm` before ' +
    '`offer.expiresAt`, and an e-mail. Joining again returns the same entry. A merchant key must give `email`.',
  input: z.strictObject({
    tierId: IdRef.describe('The sold-out tier (tier_…).'),
    quantity: z.number().int().min(1).max(50).describe('Places wanted, up to the tier’s maximum per purchase.'),
    email: Email.optional().describe('Where the offer is mailed (default: the buyer’s own address).'),
    lang: Lang.optional(),
  }),
  output: WaitingListEntryOut,
  errors: ['not_found', 'waiting_list_closed', 'places_available', 'quantity_over_limit', 'insufficient_scope'],
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/ticketing/waiting-list' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler(input, ctx) {
    return join(ctx, input);
  },
});
