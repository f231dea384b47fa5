/**
 * The sandbox provider's webhook signature: header `Sandbox-Signature: t=<unix seconds>,v1=<hex>`,
 * where v1 = HMAC-SHA256(secret, `${t}.${rawBody}`). Verified in constant time, within a tolerance.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ToolError } from '../kernel/errors.ts';

export const SIGNATURE_HEADER = 'sandbox-signature';
/** How far the signature timestamp may be from our clock. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

function hmacHex(secret: string, timestamp: number, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The header value for `body` signed at `now`. */
export function signSandboxPayload(secret: string, body: Buffer | string, now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${hmacHex(secret, t, body)}`;
}

/** Throws `invalid_signature` (missing, malformed or wrong) or `stale_signature` (outside the tolerance). */
export function verifySandboxSignature(secret: string, header: string | undefined, body: Buffer, now: Date): void {
  if (!header) throw new ToolError('invalid_signature', 'The Sandbox-Signature header is missing.');
  let timestamp: number | undefined;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d{1,12}$/.test(v)) timestamp = Number(v);
    if (k === 'v1' && v && /^[0-9a-f]{64}$/.test(v)) candidates.push(v);
  }
  if (timestamp === undefined || candidates.length === 0) {
    throw new ToolError('invalid_signature', 'The Sandbox-Signature header is malformed.');
  }
  const expected = Buffer.from(hmacHex(secret, timestamp, body), 'hex');
  const ok = candidates.some((c) => timingSafeEqual(Buffer.from(c, 'hex'), expected));
  if (!ok) throw new ToolError('invalid_signature');
  const skew = Math.abs(Math.floor(now.getTime() / 1000) - timestamp);
  if (skew > SIGNATURE_TOLERANCE_SECONDS) {
    throw new ToolError('stale_signature', undefined, { toleranceSeconds: SIGNATURE_TOLERANCE_SECONDS });
  }
}
