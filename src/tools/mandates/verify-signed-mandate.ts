/**
 * verify_signed_mandate: checks a network-signed mandate (detached JWS) without spending it (docs/signed-mandates.md).
 */
import { z } from 'zod';
import { MANDATE_JTI_MAX, MANDATE_RECURRENCES, MANDATE_TEXT_MAX, NETWORK_ID_MAX } from '../../mandates/mandate.ts';
import { MANDATE_VERIFICATION_ERRORS, verifyMandate } from '../../mandates/verify-mandate.ts';
import { requireShop } from '../../domain/catalog/access.ts';
import { defineTool } from '../../orchestrator/tool.ts';

/** The artefact as verified, within the bounds its schema (src/mandates/mandate.ts) held it to. */
const MandateOut = z.object({
  mandateId: z.string().max(MANDATE_TEXT_MAX),
  network: z.string().max(NETWORK_ID_MAX),
  issuer: z.string().max(MANDATE_TEXT_MAX),
  credentialRef: z.string().max(MANDATE_TEXT_MAX),
  merchantScope: z.object({ merchantIds: z.array(z.string().max(100)) }),
  amountLimit: z.object({ amountMinor: z.number().int(), currency: z.string() }),
  issuedAt: z.string(),
  notBefore: z.string().nullable(),
  expiresAt: z.string(),
  recurrence: z.enum(MANDATE_RECURRENCES),
  jti: z.string().max(MANDATE_JTI_MAX),
});

export const verifySignedMandate = defineTool({
  name: 'verify_signed_mandate',
  title: 'Verify a signed mandate',
  area: 'signed-mandate',
  description:
    'Verifies a card-network mandate before it is relied on: `payload` (the mandate JSON exactly as signed, a ' +
    'string), `signature` (compact JWS, payload detached: "<protected>..<signature>") and `merchantId`. ' +
    'Asymmetric algorithms only; the `kid` must be in the network’s trust list. Returns the mandate or a ' +
    'mandate_* code. Does not spend it: purchase_initiate does, once.',
  input: z.strictObject({
    payload: z
      .string()
      .max(16_384)
      .optional()
      .describe('The mandate artefact exactly as signed: the detached JWS payload, as the JSON text itself.'),
    signature: z
      .string()
      .min(1)
      .max(16_384)
      .describe('Compact JWS with the payload detached: "<protected>..<signature>".'),
    merchantId: z.string().min(1).max(100).describe('The shop the mandate is to be spent at.'),
  }),
  output: z.object({
    valid: z.boolean().describe('Always true: every failure is an error response.'),
    mandate: MandateOut,
    network: z
      .object({ id: z.string().max(NETWORK_ID_MAX), name: z.string().max(200) })
      .describe('The trusted network whose key verified the signature.'),
    signature: z.object({
      alg: z.string().max(10),
      // The key id the protected header names: within the signature's 16,384 characters.
      kid: z.string().max(16_384),
      b64: z.boolean().describe('False for an unencoded (RFC 7797) payload.'),
    }),
    period: z
      .string()
      .max(16)
      .describe('The recurrence period a purchase now would spend: "once", or a UTC day, ISO week, month or year.'),
    verifiedAt: z.string(),
  }),
  errors: [
    'not_found',
    'insufficient_scope',
    ...MANDATE_VERIFICATION_ERRORS,
    'mandate_jti_used',
    'mandate_trust_unavailable',
  ],
  auth: { principals: ['api_key', 'console_user', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'POST', path: '/v1/mandates/verify' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  // No transaction: a network's JWKS may be fetched over HTTP, and that must not hold a transaction open.
  transactional: false,
  async handler(input, { em, principal, services, clock }) {
    await requireShop(em, principal, input.merchantId);
    const now = clock.now();
    const v = await verifyMandate({ trust: services.mandateTrust, em, now }, input);
    return {
      valid: true,
      mandate: { ...v.mandate, notBefore: v.mandate.notBefore ?? null },
      network: v.network,
      signature: { alg: v.alg, kid: v.kid, b64: v.b64 },
      period: v.period,
      verifiedAt: now.toISOString(),
    };
  },
});
