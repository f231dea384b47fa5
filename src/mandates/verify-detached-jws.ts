/**
 * A detached-content JWS verifier (RFC 7515 Appendix F) with RFC 7797 unencoded payloads (`b64: false`).
 * It checks the header itself, so every refusal has its own name, then lets `jose` do the cryptography.
 */
import { base64url, errors, flattenedVerify, type JWK, type JWSAlgorithm, type KeyObject } from 'jose';
import { parseStrictJson } from './strict-json.ts';

/** Why a detached JWS was refused; the mandate service maps each to a public error code. */
export type JwsFailure =
  | 'malformed'
  | 'payload_missing'
  | 'alg_not_allowed'
  | 'crit_unsupported'
  | 'b64_without_crit'
  | 'kid_unknown'
  | 'signature_invalid';

/** A refusal with its reason; the message is safe to show to the caller. */
export class JwsVerificationError extends Error {
  readonly failure: JwsFailure;
  constructor(failure: JwsFailure, message: string) {
    super(message);
    this.failure = failure;
  }
}

/** The protected header, as decoded (unverified until `verifyDetachedJws` returns). */
export type ProtectedHeader = Record<string, unknown> & { alg: string; kid?: string; b64?: boolean; crit?: string[] };

/** A verification key: a Web Crypto key, a Node KeyObject, a JWK or (HMAC only) the secret bytes. */
export type VerificationKey = CryptoKey | KeyObject | JWK | Uint8Array;

export interface DetachedJwsInput {
  /** The compact serialization with the payload detached: `<protected>..<signature>`. */
  jws: string;
  /** The detached content, exactly as signed (a string is taken as its UTF-8 bytes). */
  payload: string | Uint8Array | undefined;
  /** The only `alg` values accepted. `none` is never accepted, whatever the list says. */
  algorithms: readonly string[];
  /** Header parameters this caller understands when listed in `crit` (default: only `b64`). */
  understoodCrit?: readonly string[];
  /**
   * Finds the key for a header that passed every structural check. What it throws passes through
   * unchanged (a JwsVerificationError('kid_unknown'), or the caller's own errors).
   */
  resolveKey: (header: ProtectedHeader, payload: Uint8Array) => Promise<VerificationKey> | VerificationKey;
}

export interface DetachedJwsResult {
  header: ProtectedHeader;
  /** The verified content bytes. */
  payload: Uint8Array;
  /** The signing input encoding: false for RFC 7797 unencoded payloads. */
  b64: boolean;
}

const MAX_JWS_CHARS = 16_384;

/** Caller-supplied text quoted in a message, cut short. */
export function clip(value: string, max = 64): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

function refuse(failure: JwsFailure, message: string): never {
  throw new JwsVerificationError(failure, message);
}

/** Decodes and checks the protected header, in the order: structure, alg, crit, b64. */
export function parseProtectedHeader(
  encoded: string,
  algorithms: readonly string[],
  understoodCrit: readonly string[],
): ProtectedHeader {
  let header: unknown;
  try {
    header = parseStrictJson(new TextDecoder('utf-8', { fatal: true }).decode(base64url.decode(encoded)));
  } catch {
    refuse('malformed', 'The protected header is not base64url-encoded JSON with unique member names.');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    refuse('malformed', 'The protected header is not a JSON object.');
  const h = header as Record<string, unknown>;
  if (typeof h.alg !== 'string' || h.alg === '') refuse('malformed', 'The protected header has no "alg".');
  if (h.alg.toLowerCase() === 'none' || !algorithms.includes(h.alg)) {
    refuse('alg_not_allowed', `The algorithm "${clip(h.alg)}" is not allowed; allowed: ${algorithms.join(', ')}.`);
  }
  if (h.kid !== undefined && (typeof h.kid !== 'string' || h.kid === ''))
    refuse('malformed', 'The "kid" header must be a non-empty string.');
  let crit: string[] = [];
  if (h.crit !== undefined) {
    if (!Array.isArray(h.crit) || h.crit.length === 0 || h.crit.some((c) => typeof c !== 'string' || c === '')) {
      refuse('malformed', 'The "crit" header must be a non-empty array of names.');
    }
    crit = h.crit as string[];
    if (new Set(crit).size !== crit.length) refuse('malformed', 'The "crit" header lists a name twice.');
    const unknown = crit.filter((c) => !understoodCrit.includes(c));
    if (unknown.length)
      refuse(
        'crit_unsupported',
        `The critical header parameter ${unknown.map((c) => `"${clip(c)}"`).join(', ')} is not understood.`,
      );
    const absent = crit.filter((c) => !Object.hasOwn(h, c));
    if (absent.length)
      refuse('malformed', `The critical header parameter "${clip(absent[0]!)}" is listed in "crit" but absent.`);
  }
  if (Object.hasOwn(h, 'b64')) {
    if (typeof h.b64 !== 'boolean') refuse('malformed', 'The "b64" header must be a boolean.');
    if (!crit.includes('b64')) refuse('b64_without_crit', 'A "b64" header requires "crit": ["b64"] (RFC 7797 §6).');
  }
  return h as ProtectedHeader;
}

/** Maps a `jose` failure to our reasons; anything unexpected fails closed as a bad signature. */
function fromJose(err: unknown): JwsVerificationError {
  if (err instanceof errors.JOSEAlgNotAllowed)
    return new JwsVerificationError('alg_not_allowed', 'The algorithm is not allowed.');
  if (err instanceof errors.JWSInvalid)
    return new JwsVerificationError('malformed', `The JWS is malformed: ${err.message}`);
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return new JwsVerificationError('signature_invalid', 'The signature does not match the payload and key.');
  }
  return new JwsVerificationError('signature_invalid', 'The signature cannot be verified with the key named by "kid".');
}

/**
 * Verifies a detached JWS over `payload` and returns the verified header and bytes, or throws a
 * JwsVerificationError naming the reason. The payload is never read from the JWS: it must be detached.
 */
export async function verifyDetachedJws(input: DetachedJwsInput): Promise<DetachedJwsResult> {
  if (typeof input.jws !== 'string' || input.jws.length > MAX_JWS_CHARS)
    refuse('malformed', 'The signature is not a compact JWS.');
  const parts = input.jws.split('.');
  if (parts.length !== 3) refuse('malformed', 'The signature must be a compact JWS: "<protected>..<signature>".');
  const [encodedHeader = '', attached = '', signature = ''] = parts;
  if (attached !== '')
    refuse(
      'malformed',
      'The JWS carries its payload; this profile requires a detached payload ("<protected>..<signature>").',
    );
  if (encodedHeader === '') refuse('malformed', 'The compact JWS lacks its protected header.');
  const header = parseProtectedHeader(encodedHeader, input.algorithms, input.understoodCrit ?? ['b64']);
  if (signature === '') refuse('malformed', 'The compact JWS lacks its signature.');
  if (input.payload === undefined || input.payload.length === 0) {
    refuse('payload_missing', 'The detached payload is missing: send the exact bytes that were signed.');
  }
  const bytes = typeof input.payload === 'string' ? new TextEncoder().encode(input.payload) : input.payload;
  const b64 = header.b64 !== false;
  const key = await input.resolveKey(header, bytes);
  try {
    await flattenedVerify(
      { protected: encodedHeader, payload: b64 ? base64url.encode(bytes) : bytes, signature },
      key,
      { algorithms: [...input.algorithms] as JWSAlgorithm[] },
    );
  } catch (err) {
    throw fromJose(err);
  }
  return { header, payload: bytes, b64 };
}
