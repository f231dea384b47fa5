/** Credential formats: opaque token prefixes, how tokens are hashed at rest, and the session JWTs the server signs. */
import { createHmac, createSecretKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { sha256Hex } from './canonical-json.ts';
import { deriveKey } from './server-secret.ts';
import type { Clock } from './clock.ts';
import type { Role } from './principal.ts';

export const API_KEY_PREFIX = 'tsk_';
export const AGENT_TOKEN_PREFIX = 'tag_';
/** The `iss` of every session JWT this server signs. */
export const SESSION_ISSUER = 'tessera';

/** Session claims the server signs; `typ` selects the principal kind. */
export type SessionClaims =
  | { typ: 'console'; sub: string; org: string; role: Role; inv?: true }
  | { typ: 'staff'; sub: string }
  | {
      typ: 'buyer';
      sub: string;
      sid: string;
      mode: 'bounded' | 'full';
      mid: string | null;
      att?: boolean;
      lng?: string;
    };

/** Tokens are stored only as this hash (SHA-256, hex), never in clear. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}

/**
 * How a delegated payment token (`vt_…`) is stored: `h1:` and an HMAC-SHA256 under the server secret's own sub-key,
 * hex. Keyed, so a dump of the database alone can neither spend a token nor test a guess against the table.
 */
export function vaultTokenHasher(secret: string): (token: string) => string {
  const key = createSecretKey(deriveKey(secret, 'tessera/acp-vault-token'));
  return (token) => `h1:${createHmac('sha256', key).update(token).digest('hex')}`;
}

/** The form migration 0020 gave tokens stored in clear before (it had no secret): `s256:` and their SHA-256, hex. */
export function legacyVaultTokenHash(token: string): string {
  return `s256:${sha256Hex(token)}`;
}

/** The HS256 key session JWTs are signed and verified with: the server secret's session-signing sub-key. */
export function sessionKey(secret: string): Uint8Array {
  return new Uint8Array(deriveKey(secret, 'tessera/session-signing'));
}

/** Signs a session JWT valid for `ttlSeconds` from the clock's now. */
export async function signSession(
  key: Uint8Array,
  clock: Clock,
  claims: SessionClaims,
  ttlSeconds: number,
): Promise<string> {
  const now = Math.floor(clock.now().getTime() / 1000);
  const { sub, ...rest } = claims;
  return new SignJWT(rest)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuer(SESSION_ISSUER)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .sign(key);
}
