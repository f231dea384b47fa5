/**
 * authorize_payment: the payments-area one-shot authorize: the same attempt as confirm, addressed by reservation id.
 */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { confirmReservation } from '../../domain/purchase/confirmation.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { CONFIRM_ERRORS, purchaseStatus, withNextStep } from '../ticketing/confirm.ts';
import { PurchaseOut } from '../ticketing/schemas.ts';

export const authorizePayment = defineTool({
  name: 'authorize_payment',
  title: 'Authorize a payment',
  area: 'payments',
  description:
    'One-shot payment for a held reservation: authorizes and captures `paymentMethod` for its total in one step. ' +
    'Same attempt and outcomes as `confirm`: 200 completed with tickets; 202 pending (do not pay again; call ' +
    'get_reservation until completed or released); 402 declined, the hold kept. Safe to retry with the same key.',
  input: z.strictObject({
    reservationId: IdRef.describe('The held reservation (rsv_…).'),
    paymentMethod: z.string().min(1).max(100).describe('A payment-method token, e.g. pm_sandbox_visa.'),
  }),
  output: PurchaseOut,
  errors: CONFIRM_ERRORS.filter((c) => c !== 'instrument_not_found'),
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/payments/authorize', status: purchaseStatus },
  successStatuses: [200, 202],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  idempotency: 'required',
  transactional: false,
  async handler({ reservationId, paymentMethod }, ctx) {
    return withNextStep(await confirmReservation(ctx, reservationId, paymentMethod), ctx);
  },
});
