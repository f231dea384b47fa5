/** confirm: pays for a held reservation; 200 completed with tickets, 202 while the provider confirms asynchronously. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { AGENT_PURCHASE_ERRORS } from '../../domain/buyers/agent-purchases.ts';
import { paymentMethodForConfirm } from '../../domain/buyers/instruments.ts';
import { confirmInGroup } from '../../domain/purchase/grouped-confirm.ts';
import type { ToolContext } from '../../domain/context.ts';
import type { PurchaseView } from '../../domain/purchase/purchase-view.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { PurchaseOut } from './schemas.ts';
import { AttendeesIn } from './attendee-schemas.ts';

export const CONFIRM_ERRORS = [
  'not_found',
  'reservation_expired',
  'reservation_released',
  'too_many_payment_attempts',
  'payment_declined',
  'insufficient_funds',
  'unknown_payment_method',
  'instrument_not_found',
  'scheme_not_allowed',
  'attendee_answers_missing',
  'invalid_answer',
  'provider_not_enabled',
  'unavailable',
  'insufficient_scope',
  ...AGENT_PURCHASE_ERRORS,
] as const;

/** Adds where to poll while the payment is pending. */
export function withNextStep(view: PurchaseView, ctx: ToolContext) {
  if (view.payment?.state !== 'pending') return view;
  const pollUrl = `${ctx.services.publicUrl()}/v1/ticketing/reservations/${view.reservation.id}`;
  const next =
    'The payment provider is confirming asynchronously. Do not submit the payment again. Poll get_reservation ' +
    `(GET ${pollUrl}) until reservation.state is completed (the order and tickets are included) or released.`;
  return { ...view, pollUrl, next };
}

/** 202 while the payment is pending, else 200. */
export const purchaseStatus = (out: z.infer<typeof PurchaseOut>): number =>
  out.payment?.state === 'pending' ? 202 : 200;

export const confirm = defineTool({
  name: 'confirm',
  title: 'Confirm and pay',
  area: 'ticketing',
  description:
    'Pays for a held reservation. Send `paymentMethod` (e.g. pm_sandbox_visa) or `instrumentId` (a saved card); ' +
    'an agent sends neither and pays with its permission’s card. 200: completed, with order and tickets. 202: ' +
    'pending at the provider: do not pay again; call get_reservation until completed or released. Safe to retry ' +
    'with the same key: it never charges twice. A decline keeps the hold.',
  input: z.strictObject({
    id: IdRef.describe('The reservation (rsv_…).'),
    paymentMethod: z.string().min(1).max(100).optional().describe('A payment-method token, e.g. pm_sandbox_visa.'),
    instrumentId: z.string().min(1).max(100).optional().describe('A saved card (ins_…) of the buyer.'),
    ...AttendeesIn,
  }),
  example: { id: 'rsv_01jf8k2m9q7r5t', paymentMethod: 'pm_sandbox_visa' },
  output: PurchaseOut,
  errors: CONFIRM_ERRORS,
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/ticketing/reservations/{id}/confirm', status: purchaseStatus },
  successStatuses: [200, 202],
  // Idempotent: the same reservation (and key) again returns the payment made or pending, never a second charge.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  audited: false, // the purchase spine: its record is the quote, reservation or order itself
  idempotency: 'required',
  // The answer commits in this process's group of confirms, with the key and its outcome (confirm-groups.ts).
  transactional: 'shared',
  async handler({ id, paymentMethod, instrumentId, attendees }, ctx) {
    const view = await confirmInGroup(ctx, {
      reservationId: id,
      // Saved cards and agents (which pay with their permission's card) resolve here: src/domain/buyers/instruments.ts.
      paymentMethod: () => paymentMethodForConfirm(ctx, id, { paymentMethod, instrumentId }),
      givenMethod: instrumentId === undefined ? paymentMethod : undefined,
      attendees,
      present: (v) => withNextStep(v, ctx),
    });
    return withNextStep(view, ctx);
  },
});
