/** Buyer identity secrets: signs session JWTs and keys the HMAC of emailed codes with the server secret. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SessionClaims } from './tokens.ts';

export type SessionSigner = (claims: SessionClaims, ttlSeconds: number) => Promise<string>;

export class Identity {
  private readonly secret: string;
  private readonly signer: SessionSigner;

  constructor(secret: string, signer: SessionSigner) {
    this.secret = secret;
    this.signer = signer;
  }

  /** Signs a session JWT (buyer, console or staff) valid for `ttlSeconds`. */
  sign(claims: SessionClaims, ttlSeconds: number): Promise<string> {
    return this.signer(claims, ttlSeconds);
  }

  /** HMAC-SHA256 of `text` under the server secret, hex. */
  hmac(text: string): string {
    return createHmac('sha256', `code:${this.secret}`).update(text).digest('hex');
  }

  /** Compares `text`'s HMAC with a stored one in constant time. */
  hmacMatches(text: string, storedHex: string): boolean {
    const a = Buffer.from(this.hmac(text), 'hex');
    const b = Buffer.from(storedHex, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
