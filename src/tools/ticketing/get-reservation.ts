/**
 * get_reservation: a reservation with its order (and tickets) and latest payment; the poll target while a payment is
 * pending.
 */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { loadPurchaseView } from '../../domain/purchase/purchase-view.ts';
import { requireReservation } from '../../domain/purchase/reservations.ts';
import { orderTaxField } from '../../domain/purchase/tax-view.ts';
import { storedAttendeesField } from '../../domain/purchase/attendee-echo.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { withNextStep } from './confirm.ts';
import { PurchaseOut } from './schemas.ts';

export const getReservation = defineTool({
  name: 'get_reservation',
  title: 'Get a reservation',
  area: 'ticketing',
  description:
    'Returns a reservation with its state (held, confirming, completed, released), its order with tickets once ' +
    'completed, and its latest payment. Poll this after confirm answered 202 until the state is completed or released.',
  input: z.strictObject({ id: IdRef.describe('The reservation (rsv_…).') }),
  output: PurchaseOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/reservations/{id}' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, ctx) {
    const r = await requireReservation(ctx.em, ctx.principal, id);
    const view = await loadPurchaseView(ctx.em, r);
    const tax = await orderTaxField(ctx.em, r.id); // the quote's breakdown, when its shop had tax
    // The attendee answers the hold carries, from the row already read.
    return withNextStep({ ...view, reservation: { ...view.reservation, ...tax, ...storedAttendeesField(r) } }, ctx);
  },
});
