/**
 * delegate_payment (ACP `POST /agentic_commerce/delegate_payment`): the sandbox vault's one-time delegated card token.
 */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';
import { AcpAddress, openObject } from '../../domain/acp/request-schemas.ts';
import { issueToken } from '../../domain/acp/vault.ts';
import { requireSession } from '../../domain/acp/sessions.ts';
import { principalKey } from '../../kernel/principal.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ACP_AUTH, AcpMeta, acpIdempotency, versionOf } from './shared.ts';

const StringMap = (why: string) => z.record(z.string().max(100), z.string().max(1000)).meta(openObject(why));

/** ACP DelegatePaymentRequest (schema.delegate_payment.json), card only. */
export const DelegatePaymentRequest = z.strictObject({
  payment_method: z
    .strictObject({
      type: z.literal('card').describe('The payment method type: card.'),
      card_number_type: z
        .enum(['fpan', 'network_token'])
        .describe('fpan (the card’s own number) or network_token (a network token with a cryptogram).'),
      number: secret(
        z.string().min(12).max(30).describe('A sandbox test card number, e.g. 4242424242424242; never stored.'),
      ),
      exp_month: z.string().max(2).optional().describe('Expiry month, MM (e.g. 12).'),
      exp_year: z.string().max(4).optional().describe('Expiry year, YYYY (e.g. 2030).'),
      name: z.string().max(256).optional().describe('Cardholder name.'),
      cvc: secret(z.string().max(4).describe('Checked for shape only; never stored.')).optional(),
      cryptogram: secret(z.string().max(200).describe('The network token cryptogram; never stored.')).optional(),
      eci_value: z
        .string()
        .max(2)
        .optional()
        .describe('Electronic Commerce Indicator of the network token (2 digits).'),
      checks_performed: z
        .array(z.enum(['avs', 'cvv', 'ani', 'auth0']))
        .max(4)
        .optional()
        .describe('Checks already performed on the card (avs, cvv, ani, auth0).'),
      iin: z.string().max(8).optional().describe('Issuer identification number: the first 6–8 digits of the card.'),
      display_card_funding_type: z
        .enum(['credit', 'debit', 'prepaid'])
        .describe('Card funding type to display: credit, debit or prepaid.'),
      display_wallet_type: z
        .string()
        .max(100)
        .optional()
        .describe('Wallet the card comes from, to display (e.g. apple_pay).'),
      display_brand: z.string().max(50).optional().describe('Card brand to display (e.g. visa).'),
      display_last4: z
        .string()
        .max(4)
        .regex(/^[0-9]{4}$/)
        .optional()
        .describe('Last 4 digits of the card, to display.'),
      metadata: StringMap('ACP: payment method metadata (string values)').describe(
        'Payment method metadata: string keys and values.',
      ),
      virtual: z.boolean().optional().describe('Whether the card is a virtual card.'),
    })
    .describe('The card to delegate.'),
  allowance: z
    .strictObject({
      reason: z.literal('one_time').describe('Why the token may be used: one_time (a single charge).'),
      max_amount: z.number().int().min(0).max(2_000_000_000).describe('Minor units; the most complete may charge.'),
      currency: z
        .string()
        .max(3)
        .regex(/^[a-z]{3}$/, 'must be a lower-case ISO 4217 code')
        .describe('Currency of max_amount, lower-case ISO 4217 (e.g. eur).'),
      checkout_session_id: z.string().min(1).max(100).describe('The checkout session (cs_…) the token may pay for.'),
      merchant_id: z.string().min(1).max(256).describe('The merchant (shop_…) that may charge it.'),
      expires_at: z.iso
        .datetime({ offset: true })
        .max(40)
        .describe('RFC 3339; the token is refused at or after this time.'),
    })
    .describe(
      'What the token may pay for: one charge up to max_amount, for one session and merchant, until expires_at.',
    ),
  billing_address: AcpAddress.optional().describe('Billing address of the card.'),
  risk_signals: z
    .array(
      z.strictObject({
        type: z.literal('card_testing').describe('The kind of risk signal: card_testing.'),
        score: z.number().int().describe('The risk score the agent assigned.'),
        action: z.enum(['blocked', 'manual_review', 'authorized']).describe('What the agent did on this signal.'),
      }),
    )
    .max(20)
    .describe('Risk signals the agent observed (up to 20; may be empty).'),
  metadata: StringMap('ACP: correlation metadata (string values)').describe(
    'Correlation metadata: string keys and values.',
  ),
});

export const delegatePayment = defineTool({
  name: 'delegate_payment',
  title: 'Delegate a card to the sandbox vault (ACP)',
  area: 'acp',
  description:
    'ACP Delegate Payment against the sandbox vault: `{ meta, payload }` with a DelegatePaymentRequest. The card ' +
    'must be a sandbox test card (e.g. 4242424242424242); it is never stored. The allowance binds the token ' +
    '(one_time, max_amount, currency, checkout_session_id, merchant_id, expires_at). Returns `{ id: "vt_…" }` for ' +
    'complete_checkout_session.',
  input: z.strictObject({
    meta: AcpMeta,
    payload: DelegatePaymentRequest.describe(
      'The ACP DelegatePaymentRequest: the card, its allowance and risk signals.',
    ),
  }),
  output: z.object({
    id: secret(z.string().describe('The one-time delegated token (vt_…).')),
    created: z.string(),
    metadata: z.record(z.string(), z.string()),
  }),
  errors: ['missing_api_version', 'unsupported_api_version', 'invalid_card', 'insufficient_scope', 'not_found'],
  auth: ACP_AUTH,
  http: { method: 'POST', path: '/v1/acp/delegate_payment', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  idempotencyRequest: acpIdempotency(() => 'POST /agentic_commerce/delegate_payment'),
  async handler({ meta, payload }, ctx) {
    versionOf(meta);
    // Refused at the door: a token only for a checkout session the caller may see (another organization's is 404).
    await requireSession(ctx, payload.allowance.checkout_session_id);
    return issueToken(ctx.em, payload, {
      ownerKey: principalKey(ctx.principal),
      now: ctx.clock.now(),
      idempotencyKey: meta.idempotency_key ?? ctx.idempotencyKey,
      hash: ctx.services.vaultTokenHash,
    });
  },
});
