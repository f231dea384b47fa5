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
  payment_method: z.strictObject({
    type: z.literal('card'),
    card_number_type: z.enum(['fpan', 'network_token']),
    number: secret(
      z.string().min(12).max(30).describe('A sandbox test card number, e.g. 4242424242424242; never stored.'),
    ),
    exp_month: z.string().max(2).optional(),
    exp_year: z.string().max(4).optional(),
    name: z.string().max(256).optional(),
    cvc: secret(z.string().max(4).describe('Checked for shape only; never stored.')).optional(),
    cryptogram: secret(z.string().max(200)).optional(),
    eci_value: z.string().max(2).optional(),
    checks_performed: z
      .array(z.enum(['avs', 'cvv', 'ani', 'auth0']))
      .max(4)
      .optional(),
    iin: z.string().max(8).optional(),
    display_card_funding_type: z.enum(['credit', 'debit', 'prepaid']),
    display_wallet_type: z.string().max(100).optional(),
    display_brand: z.string().max(50).optional(),
    display_last4: z
      .string()
      .max(4)
      .regex(/^[0-9]{4}$/)
      .optional(),
    metadata: StringMap('ACP: payment method metadata (string values)'),
    virtual: z.boolean().optional(),
  }),
  allowance: z.strictObject({
    reason: z.literal('one_time'),
    max_amount: z.number().int().min(0).max(2_000_000_000).describe('Minor units; the most complete may charge.'),
    currency: z
      .string()
      .max(3)
      .regex(/^[a-z]{3}$/, 'must be a lower-case ISO 4217 code'),
    checkout_session_id: z.string().min(1).max(100).describe('The checkout session (cs_…) the token may pay for.'),
    merchant_id: z.string().min(1).max(256).describe('The merchant (shop_…) that may charge it.'),
    expires_at: z.iso
      .datetime({ offset: true })
      .max(40)
      .describe('RFC 3339; the token is refused at or after this time.'),
  }),
  billing_address: AcpAddress.optional(),
  risk_signals: z
    .array(
      z.strictObject({
        type: z.literal('card_testing'),
        score: z.number().int(),
        action: z.enum(['blocked', 'manual_review', 'authorized']),
      }),
    )
    .max(20),
  metadata: StringMap('ACP: correlation metadata (string values)'),
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
  input: z.strictObject({ meta: AcpMeta, payload: DelegatePaymentRequest }),
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
