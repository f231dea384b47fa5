/**
 * purchase_initiate: pays for a reservation (or a quote) under a card-network mandate, the spend authority
 * (docs/signed-mandates.md).
 */
import { z } from 'zod';
import { MANDATE_JTI_MAX, MANDATE_RECURRENCES, MANDATE_TEXT_MAX, NETWORK_ID_MAX } from '../../mandates/mandate.ts';
import { MANDATE_VERIFICATION_ERRORS } from '../../mandates/verify-mandate.ts';
import type { ErrorCode } from '../../kernel/errors.ts';
import { purchaseUnderMandate } from '../../domain/purchase/mandate-purchase.ts';
import { RESTRICTION_ERRORS } from '../../domain/catalog/restrictions.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { purchaseStatus, withNextStep } from '../ticketing/confirm.ts';
import { PurchaseOut } from '../ticketing/schemas.ts';

/** Refusals of the mandate itself: the caller needs a (new) valid mandate. On A2A they end in auth-required. */
export const MANDATE_AUTHORITY_ERRORS = [
  'mandate_required',
  ...MANDATE_VERIFICATION_ERRORS,
  'mandate_currency_mismatch',
  'mandate_amount_exceeded',
  'mandate_jti_used',
] as const satisfies readonly ErrorCode[];

const SPINE_ERRORS = [
  'not_found',
  'invalid_input',
  'insufficient_scope',
  'reservation_expired',
  'reservation_released',
  'quote_expired',
  ...RESTRICTION_ERRORS,
  'payment_declined',
  'insufficient_funds',
  'unknown_payment_method',
  'provider_not_enabled',
  'unavailable',
  'mandate_trust_unavailable',
] as const satisfies readonly ErrorCode[];

const MandateUse = z.object({
  mandateId: z.string().max(MANDATE_TEXT_MAX),
  network: z.string().max(NETWORK_ID_MAX).describe('The trusted network whose key verified the signature.'),
  issuer: z.string().max(MANDATE_TEXT_MAX),
  jti: z.string().max(MANDATE_JTI_MAX),
  recurrence: z.enum(MANDATE_RECURRENCES),
  amountLimit: z.object({ amountMinor: z.number().int(), currency: z.string() }),
  expiresAt: z.string(),
  spentPeriod: z
    .string()
    .max(16)
    .nullable()
    .describe(
      'The period this call spent the jti in ("once", or a UTC day, ISO week, month or year); null when the reservation was already paid or in payment, so nothing was spent.',
    ),
});

export const purchaseInitiate = defineTool({
  name: 'purchase_initiate',
  title: 'Purchase under a signed mandate',
  area: 'vic',
  description:
    'Pays for your held reservation (`reservationId`) or reserves and pays your quote (`quoteId`) under a ' +
    'card-network mandate, the spend authority (no buyer permission). The mandate is verified, then amount, shop, ' +
    'expiry and unspent `jti` are checked; its `credentialRef` is charged. 200 completed; 202 pending (call ' +
    'get_reservation); a refusal (mandate_*) charges nothing. Safe to retry.',
  input: z.strictObject({
    reservationId: z.string().min(1).max(100).optional().describe('Your held reservation (rsv_…); or give quoteId.'),
    quoteId: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe('Your quote (quo_…): it is reserved and paid in one step; or give reservationId.'),
    mandate: z
      .strictObject({
        payload: z
          .string()
          .max(16_384)
          .optional()
          .describe('The mandate artefact exactly as signed: the detached JWS payload, as JSON text.'),
        signature: z
          .string()
          .max(16_384)
          .optional()
          .describe('Compact JWS with the payload detached: "<protected>..<signature>".'),
      })
      .optional()
      .describe('Required: the network-signed mandate. Without it the answer is mandate_required.'),
  }),
  output: PurchaseOut.extend({ mandate: MandateUse.describe('The verified mandate the purchase was made under.') }),
  errors: [...SPINE_ERRORS, ...MANDATE_AUTHORITY_ERRORS],
  authRequiredErrors: MANDATE_AUTHORITY_ERRORS,
  // Agents and merchant platforms (API keys) present mandates; the mandate, not a buyer permission, authorizes the
  // spend, so an OAuth access token (an agent inside one permission only) may not call it.
  auth: { principals: ['agent', 'api_key'], scopes: ['merchant:write'], outsidePermission: true },
  http: { method: 'POST', path: '/v1/vic/purchase-initiate', status: purchaseStatus },
  successStatuses: [200, 202],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  idempotency: 'required',
  // The JWKS fetch and the provider call must never hold a transaction open: the service runs its own short ones.
  transactional: false,
  async handler(input, ctx) {
    const { view, mandate, spentPeriod } = await purchaseUnderMandate(ctx, input);
    const { mandateId, network, issuer, jti, recurrence, amountLimit, expiresAt } = mandate;
    return {
      ...withNextStep(view, ctx),
      mandate: { mandateId, network, issuer, jti, recurrence, amountLimit, expiresAt, spentPeriod },
    };
  },
});
