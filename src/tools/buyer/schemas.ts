/** Wire schemas of the buyer area: sessions, codes, agents, permissions, card setups and saved cards. */
import { z } from 'zod';
import { secret } from '../../kernel/secret-fields.ts';
import { CODE_PURPOSES } from '../../domain/buyers/verification.ts';
import { LANGS } from '../../i18n/langs.ts';
import { DateTime, Id, Minor } from '../../kernel/wire.ts';

export const Lang = z.enum(LANGS).describe('Buyer-page language: en, de, es, fr, hu or pt-BR.');
export const Email = z.email().max(254).describe('The buyer’s email address (up to 254 characters).');
export const Purpose = z
  .enum(CODE_PURPOSES)
  .describe('The operation the code will prove, e.g. save_card, create_agent or grant_permission.');

/** The emailed-code proof a sensitive operation carries. */
export const codeProof = {
  challengeId: Id('vch').describe('From request_verification_code (POST /v1/buyer/verification-codes).'),
  code: secret(
    z
      .string()
      .max(6)
      .regex(/^\d{6}$/, 'must be the 6-digit code')
      .describe('The 6-digit code emailed to the buyer.'),
  ),
};
/** The same proof, optional: operations open to attested consent run without it under an attested session. */
export const optionalCodeProof = { challengeId: codeProof.challengeId.optional(), code: codeProof.code.optional() };
/**
 * The refusals of an operation that checks the emailed-code proof (src/domain/buyers/verification.ts, origin-guard.ts).
 */
export const CODE_PROOF_ERRORS = [
  'verification_required',
  'verification_code_invalid',
  'verification_code_expired',
  'verification_attempts_exhausted',
  'partner_origin_refused',
] as const;

export const SessionOut = z.object({
  token: secret(z.string().describe('The bearer: keep it in memory only (never a cookie or storage).')),
  tokenType: z.literal('Bearer'),
  expiresAt: z.string(),
  buyerId: z.string(),
  mode: z.enum(['bounded', 'full']),
  merchantId: z.string().nullable(),
  attested: z.boolean(),
  lang: z.string().nullable(),
});

const JwkKid = z.string().max(100).optional().describe('Key id (optional).');
const JwkAlg = z.string().max(10).optional().describe('Signing algorithm, e.g. EdDSA or ES256 (optional).');
const JwkUse = z.literal('sig').optional().describe('Key use: sig (optional).');

export const PublicJwk = z
  .discriminatedUnion('kty', [
    z.strictObject({
      kty: z.literal('OKP').describe('Key type: OKP.'),
      crv: z.literal('Ed25519').describe('Curve: Ed25519.'),
      x: z.string().min(40).max(50).describe('The public key, base64url.'),
      kid: JwkKid,
      alg: JwkAlg,
      use: JwkUse,
    }),
    z.strictObject({
      kty: z.literal('EC').describe('Key type: EC.'),
      crv: z.literal('P-256').describe('Curve: P-256.'),
      x: z.string().min(40).max(50).describe('The x coordinate, base64url.'),
      y: z.string().min(40).max(50).describe('The y coordinate, base64url.'),
      kid: JwkKid,
      alg: JwkAlg,
      use: JwkUse,
    }),
  ])
  .describe('The agent’s public key as a JWK: Ed25519 (kty OKP) or P-256 (kty EC). Never send a private key.');

export const AgentOut = z.object({
  id: z.string(),
  name: z.string(),
  credential: z.enum(['issued', 'key']),
  tokenPrefix: z.string().nullable(),
  publicKeyJwk: z.record(z.string(), z.string()).nullable(),
  status: z.enum(['active', 'paused', 'deleted']),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const permissionLimits = {
  perPurchaseCapMinor: Minor.describe('The most one purchase may cost, in minor units.'),
  allowanceMinor: Minor.describe('The most the agent may spend in this shop per rolling window, in minor units.'),
  windowHours: z.number().int().min(1).max(8760).describe('The rolling window of the allowance, in hours.'),
  expiresAt: DateTime.describe('When the permission ends (RFC 3339).'),
};

export const PermissionOut = z.object({
  id: z.string(),
  agentId: z.string(),
  agentName: z.string().nullable().describe('The agent’s name; null once the agent was deleted.'),
  merchantId: z.string(),
  instrumentId: z.string(),
  currency: z.string(),
  perPurchaseCapMinor: z.number().int(),
  allowanceMinor: z.number().int(),
  windowHours: z.number().int(),
  spentMinor: z.number().int().describe('Spent by the agent in this shop in the current window.'),
  remainingMinor: z.number().int(),
  expiresAt: z.string(),
  status: z.enum(['active', 'expired', 'revoked']),
  label: z.string().nullable().describe('"Set up by <shop>" when created by attested consent.'),
  attested: z.boolean(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  revokedReason: z.string().nullable(),
});

export const InstrumentOut = z.object({
  id: z.string(),
  merchantId: z.string().describe('The shop the card was saved for; it is usable only there.'),
  provider: z.string().describe('The payment connection the card was saved with.'),
  scheme: z.string(),
  last4: z.string(),
  spendingCapMinor: z.number().int(),
  currency: z.string(),
  createdAt: z.string(),
});

export const SetupOut = z.object({
  setupId: z.string(),
  merchantId: z.string(),
  provider: z.string(),
  status: z.enum(['pending', 'succeeded', 'failed']),
  formUrl: z.string().describe('The provider’s hosted card form to frame; it posts a payment method to this page.'),
  scheme: z.string().nullable(),
  last4: z.string().nullable(),
  failureCode: z.string().nullable(),
  instrumentId: z.string().nullable(),
  expiresAt: z.string(),
});

/** What the buyer authorizes in one step (authorize_agent, and the code requested for it): agent, card, limits. */
export const AgentAuthorizationIn = z.strictObject({
  name: z.string().trim().min(1).max(100).describe('The new agent’s name.'),
  instrumentId: z.string().min(1).max(100).optional().describe('A saved card of this shop (ins_…); or give setupId.'),
  setupId: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe(
      'A succeeded card setup (a card just entered in the provider’s form): saved with the authorization; or give instrumentId.',
    ),
  ...permissionLimits,
});
