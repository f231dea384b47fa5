/** release: gives a held reservation's places back, exactly once. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { releaseReservation } from '../../domain/purchase/reservations.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PurchaseOut } from './schemas.ts';

export const release = defineTool({
  name: 'release',
  title: 'Release a reservation',
  area: 'ticketing',
  description:
    'Gives the places of a held reservation back to the pool. Releasing again returns the released reservation ' +
    'unchanged (places are given back once). Refused with `payment_in_flight` while a payment is being confirmed, and ' +
    'with `reservation_not_held` once completed.',
  input: z.strictObject({ id: IdRef.describe('The reservation (rsv_…).') }),
  output: PurchaseOut,
  errors: ['not_found', 'payment_in_flight', 'reservation_not_held', 'insufficient_scope'],
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/ticketing/reservations/{id}/release' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  audited: false, // the purchase spine: its record is the quote, reservation or order itself
  idempotency: 'optional',
  async handler({ id }, ctx) {
    return releaseReservation(ctx, id);
  },
});
