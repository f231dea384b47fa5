/** reserve: turns a quote into a hold on its places, with an expiry. */
import { z } from 'zod';
import { AGENT_PURCHASE_ERRORS } from '../../domain/buyers/agent-purchases.ts';
import { loadPurchaseView, reservationView } from '../../domain/purchase/purchase-view.ts';
import { holdQuote } from '../../domain/purchase/reservations.ts';
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
    '(details.available): the places are gone. REST requires an Idempotency-Key. Next: `confirm` with reservation.id.',
  input: z.strictObject({ quoteId: z.string().min(1).describe('The quote (quo_…) from `quote`.') }),
  output: PurchaseOut,
  errors: [
    ...AGENT_PURCHASE_ERRORS,
    'not_found',
    'quote_already_used',
    'quote_expired',
    ...RESTRICTION_ERRORS,
    'insufficient_scope',
  ],
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/ticketing/reservations', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'required',
  async handler({ quoteId }, ctx) {
    const { reservation, created } = await holdQuote(ctx, quoteId);
    // A new hold has no payment or order yet: its view is the reservation alone. Reserving the same quote again
    // (natural idempotency) returns the same hold as it is now, with its latest payment and order.
    if (created) return { reservation: reservationView(reservation, null) };
    return loadPurchaseView(ctx.em, reservation);
  },
});
