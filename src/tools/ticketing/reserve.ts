/** reserve: turns a quote into a hold on its places, with an expiry. */
import { z } from 'zod';
import { AGENT_PURCHASE_ERRORS } from '../../domain/buyers/agent-purchases.ts';
import { reservationView } from '../../domain/purchase/purchase-view.ts';
import { admitReserve, reserveInBatch } from '../../domain/purchase/reserve-batcher.ts';
import { RESTRICTION_ERRORS } from '../../domain/catalog/restrictions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PurchaseOut } from './schemas.ts';

export const reserve = defineTool({
  name: 'reserve',
  title: 'Reserve places',
  area: 'ticketing',
  description:
    'Holds the places of a quote at the quoted price until `reservation.expiresAt` (the shop’s hold time). A quote ' +
    'can be reserved once (`quote_already_used`) and only before it expires (`quote_expired`); the sale window and ' +
    'other restrictions are checked again. Fails with `sold_out` (details.available) when the places are gone. ' +
    'Requires an Idempotency-Key: retrying with the same key returns the same reservation. When the pool is at ' +
    'capacity the call is refused at once with `rate_limited` (429, `retryAfter`): retry with the same key. Next: `confirm`.',
  input: z.strictObject({ quoteId: z.string().min(1).describe('The quote (quo_…) from `quote`.') }),
  output: PurchaseOut,
  errors: [
    ...AGENT_PURCHASE_ERRORS,
    'not_found',
    'quote_already_used',
    'quote_expired',
    ...RESTRICTION_ERRORS,
    'insufficient_scope',
    'rate_limited',
  ],
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/ticketing/reservations', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotency: 'required',
  // Concurrent reserves share a transaction (the hot-pool batcher); each keeps its own outcome and replay.
  transactional: 'shared',
  admit: admitReserve,
  async handler({ quoteId }, ctx) {
    // A new hold has no payment or order yet: its view is the reservation alone.
    return reserveInBatch(ctx, quoteId, (reservation) => ({ reservation: reservationView(reservation, null) }));
  },
});
