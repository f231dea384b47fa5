/**
 * Verifiable ticket codes: a compact JWS (EdDSA, Ed25519) over `{ tid, evt, tier, iat }`, with the signing
 * key's id in the protected header. A scanner verifies it offline with the published JWKS (docs/tickets.md).
 */
import { sign } from 'node:crypto';
import { compactVerify, createLocalJWKSet, errors } from 'jose';
import { ToolError } from '../kernel/errors.ts';
import { TICKET_CODE_ALG, type PublicTicketKey, type SigningKey } from './ticket-keys.ts';

/** The JWS `typ` of a ticket code. */
export const TICKET_CODE_TYP = 'tessera-ticket';

/** What a ticket code asserts. */
export interface TicketClaims {
  /** The ticket id (tkt_…). */
  tid: string;
  /** The event (evt_…). */
  evt: string;
  /** The tier (tier_…). */
  tier: string;
  /** Issue time, Unix seconds. */
  iat: number;
}

/**
 * Signs a ticket's claims with `key`; deterministic (Ed25519), so the same ticket always gets the same code. The compact
 * JWS is assembled here and signed with node:crypto's one-shot Ed25519 signature, synchronously: through WebCrypto
 * (jose's CompactSign) each signature was a job on the thread pool, about 0.3 ms of a confirm's CPU per ticket on this
 * machine class (docs/performance-log.md, 2026-11-28). The bytes are the same as jose's (Ed25519 is deterministic).
 */
export function signTicketCode(
  key: SigningKey,
  t: { id: string; eventId: string; tierId: string; createdAt: Date },
): Promise<string> {
  const claims: TicketClaims = {
    tid: t.id,
    evt: t.eventId,
    tier: t.tierId,
    iat: Math.floor(t.createdAt.getTime() / 1000),
  };
  const header = b64url(JSON.stringify({ alg: TICKET_CODE_ALG, kid: key.kid, typ: TICKET_CODE_TYP }));
  const input = `${header}.${b64url(JSON.stringify(claims))}`;
  const signature = sign(null, Buffer.from(input), key.key).toString('base64url');
  return Promise.resolve(`${input}.${signature}`);
}

const b64url = (text: string): string => Buffer.from(text).toString('base64url');

/**
 * Verifies a code against the published keys; `invalid_ticket_code` when it is malformed, unsigned by us or tampered
 * with.
 */
export async function verifyTicketCode(keys: readonly PublicTicketKey[], code: string): Promise<TicketClaims> {
  const jwks = createLocalJWKSet({ keys: [...keys] });
  try {
    const { payload, protectedHeader } = await compactVerify(code, jwks, { algorithms: [TICKET_CODE_ALG] });
    if (protectedHeader.typ !== TICKET_CODE_TYP) throw new ToolError('invalid_ticket_code');
    const claims = JSON.parse(new TextDecoder().decode(payload)) as Partial<TicketClaims>;
    if (
      typeof claims.tid !== 'string' ||
      typeof claims.evt !== 'string' ||
      typeof claims.tier !== 'string' ||
      typeof claims.iat !== 'number'
    ) {
      throw new ToolError('invalid_ticket_code');
    }
    return claims as TicketClaims;
  } catch (err) {
    if (err instanceof ToolError) throw err;
    if (err instanceof errors.JOSEError || err instanceof SyntaxError || err instanceof TypeError) {
      throw new ToolError('invalid_ticket_code');
    }
    throw err;
  }
}
