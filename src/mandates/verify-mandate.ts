/**
 * Verifies a signed mandate: the detached network signature, then the artefact, its validity window,
 * its merchant scope and whether its jti is already spent. Each failure is one public error code.
 * verify_signed_mandate and purchase_initiate both call this; only purchase_initiate spends the jti.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ErrorCode } from '../kernel/errors.ts';
import { ToolError } from '../kernel/errors.ts';
import { MandateArtefact, mandatePeriod, validFrom, type Mandate } from './mandate.ts';
import { isMandateJtiUsed, jtiUsed } from './mandate-jtis.ts';
import { parseStrictJson, StrictJsonError } from './strict-json.ts';
import type { TrustList } from './trust-list.ts';
import {
  clip,
  JwsVerificationError,
  verifyDetachedJws,
  type JwsFailure,
  type ProtectedHeader,
} from './verify-detached-jws.ts';

/** The signature algorithms a mandate may use: asymmetric only (no `none`, no HMAC). */
/** Every code verification of a mandate (signature, artefact, time, merchant) may answer. */
export const MANDATE_VERIFICATION_ERRORS = [
  'mandate_jws_malformed',
  'mandate_payload_missing',
  'mandate_alg_not_allowed',
  'mandate_crit_unsupported',
  'mandate_b64_without_crit',
  'mandate_network_untrusted',
  'mandate_kid_unknown',
  'mandate_signature_invalid',
  'mandate_invalid',
  'mandate_expired',
  'mandate_not_yet_valid',
  'mandate_merchant_mismatch',
] as const satisfies readonly ErrorCode[];

export const MANDATE_ALGORITHMS = ['EdDSA', 'Ed25519', 'ES256', 'ES384', 'PS256', 'PS384', 'PS512'] as const;

/** How far ahead of notBefore a mandate is accepted, for clocks that differ (expiry gets no grace). */
export const NOT_BEFORE_LEEWAY_MS = 60_000;

const FAILURE_CODES: Record<JwsFailure, ErrorCode> = {
  malformed: 'mandate_jws_malformed',
  payload_missing: 'mandate_payload_missing',
  alg_not_allowed: 'mandate_alg_not_allowed',
  crit_unsupported: 'mandate_crit_unsupported',
  b64_without_crit: 'mandate_b64_without_crit',
  kid_unknown: 'mandate_kid_unknown',
  signature_invalid: 'mandate_signature_invalid',
};

export interface VerifyMandateInput {
  /** The exact text that was signed (the detached payload); absent is `mandate_payload_missing`. */
  payload?: string | undefined;
  /** The compact detached JWS: `<protected>..<signature>`. */
  signature: string;
  /** The shop the mandate is to be spent at. */
  merchantId: string;
}

export interface VerifiedMandate {
  mandate: Mandate;
  network: { id: string; name: string };
  alg: string;
  kid: string;
  /** False when the payload was signed unencoded (RFC 7797). */
  b64: boolean;
  /** The recurrence period the mandate would be spent in now. */
  period: string;
}

function invalid(message: string, details?: Record<string, unknown>): ToolError {
  return new ToolError('mandate_invalid', message, details);
}

/** The payload as a JSON value, refusing text that is not UTF-8 JSON with unique member names. */
function parsePayload(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalid('The mandate payload is not UTF-8 text.');
  }
  try {
    return parseStrictJson(text);
  } catch (err) {
    throw invalid(
      err instanceof StrictJsonError
        ? `The mandate payload is not acceptable JSON: ${err.message}`
        : 'The mandate payload is not JSON.',
    );
  }
}

/** Resolves the key: the network the artefact names must be trusted and publish the header's kid. */
function keyResolver(trust: TrustList, found: { network?: { id: string; name: string } }) {
  return async (header: ProtectedHeader, bytes: Uint8Array) => {
    const json = parsePayload(bytes) as { network?: unknown } | null;
    const networkId =
      typeof json === 'object' && json !== null && typeof json.network === 'string' ? json.network : undefined;
    if (!networkId) throw invalid('The mandate payload does not name its signing network.', { field: 'network' });
    const network = await trust.network(networkId);
    if (!network) {
      throw new ToolError(
        'mandate_network_untrusted',
        `The network "${clip(networkId)}" is not in this server’s mandate trust list.`,
        {
          network: clip(networkId),
        },
      );
    }
    if (!header.kid)
      throw new JwsVerificationError('kid_unknown', 'The protected header has no "kid"; the profile requires one.');
    const jwk = await network.findKey(header.kid);
    if (!jwk)
      throw new JwsVerificationError(
        'kid_unknown',
        `The network "${networkId}" publishes no key "${clip(header.kid)}".`,
      );
    if (jwk.alg !== undefined && jwk.alg !== header.alg) {
      throw new JwsVerificationError(
        'alg_not_allowed',
        `The key "${clip(header.kid)}" is for ${jwk.alg}, not ${header.alg}.`,
      );
    }
    found.network = { id: network.id, name: network.name };
    return jwk;
  };
}

/**
 * Verifies the signature and the mandate's own rules; throws a ToolError with the precise code.
 * `checkJti: false` leaves the replay check to the caller: purchase_initiate spends the jti atomically
 * with the payment (consumeMandateJti), which is the check that counts.
 */
export async function verifyMandate(
  deps: { trust: TrustList; em: EntityManager; now: Date },
  input: VerifyMandateInput,
  opts: { checkJti?: boolean } = {},
): Promise<VerifiedMandate> {
  const found: { network?: { id: string; name: string } } = {};
  let verified;
  try {
    verified = await verifyDetachedJws({
      jws: input.signature,
      payload: input.payload,
      algorithms: MANDATE_ALGORITHMS,
      resolveKey: keyResolver(deps.trust, found),
    });
  } catch (err) {
    if (err instanceof JwsVerificationError) throw new ToolError(FAILURE_CODES[err.failure], err.message);
    throw err;
  }
  const parsed = MandateArtefact.safeParse(parsePayload(verified.payload));
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 10)
      .map((i) => ({ field: i.path.join('.') || '(root)', message: i.message }));
    throw invalid(`The mandate is invalid at ${problems[0]!.field}: ${problems[0]!.message}`, { problems });
  }
  const mandate = parsed.data;
  const now = deps.now;
  if (now >= new Date(mandate.expiresAt)) {
    throw new ToolError('mandate_expired', `The mandate expired at ${mandate.expiresAt}.`, {
      expiresAt: mandate.expiresAt,
    });
  }
  if (now.getTime() + NOT_BEFORE_LEEWAY_MS < validFrom(mandate).getTime()) {
    const from = validFrom(mandate).toISOString();
    throw new ToolError('mandate_not_yet_valid', `The mandate is not valid before ${from}.`, { notBefore: from });
  }
  if (!mandate.merchantScope.merchantIds.includes(input.merchantId)) {
    throw new ToolError(
      'mandate_merchant_mismatch',
      `The mandate does not authorize purchases at ${clip(input.merchantId)}.`,
      {
        merchantId: input.merchantId,
      },
    );
  }
  const period = mandatePeriod(mandate.recurrence, now);
  if (opts.checkJti !== false && (await isMandateJtiUsed(deps.em, mandate, now))) throw jtiUsed(mandate, period);
  return {
    mandate,
    network: found.network!,
    alg: verified.header.alg,
    kid: verified.header.kid!,
    b64: verified.b64,
    period,
  };
}
