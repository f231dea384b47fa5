/**
 * The server secret's derived keys: every use takes its own HKDF-SHA256 sub-key (session signing, each sealing box,
 * the sandbox provider's webhook signing), and the database keeps only a fingerprint, itself a sub-key, so a server
 * started with another secret can refuse at once (docs/security.md, "The server secret").
 */
import { createHmac, createSecretKey, hkdfSync, randomBytes } from 'node:crypto';

/** A sub-key of `secret` for one `purpose` (HKDF-SHA256, no salt, the purpose as info). */
export function deriveKey(secret: string, purpose: string, bytes = 32): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, bytes));
}

/** What the database keeps to recognise the secret: a sub-key of its own, which opens nothing and signs nothing. */
export function secretFingerprint(secret: string): string {
  return `v1:${deriveKey(secret, 'tessera/server-secret-fingerprint').toString('base64url')}`;
}

/**
 * The stored fingerprint of an idempotent request: `h1:` and an HMAC-SHA256 under the secret's own sub-key, hex. The
 * key is made a KeyObject once (an HMAC from raw bytes imports them on every call: about 20 µs against 2–3).
 */
export function requestHasher(secret: string): (canonical: string) => string {
  const key = createSecretKey(deriveKey(secret, 'tessera/idempotency-request-hash'));
  return (canonical) => `h1:${createHmac('sha256', key).update(canonical).digest('hex')}`;
}

/** A new random server secret (256 bits, base64url). */
export const newServerSecret = (): string => randomBytes(32).toString('base64url');

/** The server secret is missing, unreadable or not the one this database was used with; the message says what to do. */
export class ServerSecretError extends Error {}
