/** The tests' own verifier of signed ticket codes and lists: independent of the server's code (node:crypto only). */
import { createPublicKey, verify } from 'node:crypto';

/** The shape `get_ticket_keys` answers. */
export interface Jwks {
  keys: { kid: string; kty: string; crv: string; x: string }[];
}

/** A compact JWS `header.payload.signature`, EdDSA over `header.payload`, key by `kid`; its payload, or null. */
export function verifyCompact(jwks: Jwks, jws: string, typ: string): Record<string, unknown> | null {
  const parts = jws.split('.');
  if (parts.length !== 3) return null;
  const [h64, p64, s64] = parts as [string, string, string];
  const header = JSON.parse(Buffer.from(h64, 'base64url').toString('utf8'));
  if (header.alg !== 'EdDSA' || header.typ !== typ) return null;
  const jwk = jwks.keys.find((k) => k.kid === header.kid);
  if (!jwk) return null;
  const publicKey = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' });
  const ok = verify(null, Buffer.from(`${h64}.${p64}`), publicKey, Buffer.from(s64, 'base64url'));
  return ok ? JSON.parse(Buffer.from(p64, 'base64url').toString('utf8')) : null;
}
