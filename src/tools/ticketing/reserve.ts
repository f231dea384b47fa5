/** reserve: turns a quote into a hold on its places, with an expiry. */
import { z } from 'zod';
import { AGENT_PURCHASE_ERRORS } from '../../domain/buyers/agent-purchases.ts';
import { loadPurchaseView, reservationView } from '../../domain/purchase/purchase-view.ts';
import { reserveAdmission, reserveInBatch } from '../../domain/purchase/reserve-batcher.ts';
import { sameOwnerHold } from '../../domain/purchase/reservations.ts';
import { ToolError } from '../../kernel/errors.ts';
import { RESTRICTION_ERRORS } from '../../domain/catalog/restrictions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PurchaseOut } from './schemas.ts';

export const reserve = defineTool({
  name: 'reserve',
  title: 'Reserve places',
  area: 'ticketing',
  description:
    'Holds the places of a quote at the quoted price until `reservation.expiresAt` (the shop’s hold time). Safe to ' +
    'retry: reserving the same quote again returns the same reservation. `quote_already_used`: someone else reserved ' +
    'it; `quote_expired`: quote again. The sale window and other restrictions are checked again; `sold_out` ' +
    '(details.available): the places are gone. REST requires an Idempotency-Key. When the pool is at capacity the ' +
    'call is refused at once with `rate_limited` (429, `retryAfter`): retry after that many seconds (callers refused ' +
    'together are given different times). Next: `confirm` with reservation.id.',
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
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'required',
  // Concurrent reserves share a transaction (the hot-pool batcher); each keeps its own outcome and replay.
  transactional: 'shared',
  admission: reserveAdmission,
  async handler({ quoteId }, ctx) {
    try {
      // A new hold has no payment or order yet: its view is the reservation alone.
      return await reserveInBatch(ctx, quoteId, (reservation) => ({ reservation: reservationView(reservation, null) }));
    } catch (err) {
      // Natural idempotency: when the quote was already reserved by the same owner (an earlier call, or a concurrent
      // one in the same batch), that hold, as it is now, is this call's answer too; anyone else keeps the refusal.
      const again = err instanceof ToolError && err.code === 'quote_already_used' ? await sameOwnerHold(ctx, quoteId) : undefined;
      if (again) return loadPurchaseView(ctx.em, again);
      throw err;
    }
  },
});
