/**
 * Verification of a delivery with the `standardwebhooks` package (the Standard Webhooks reference library), so
 * the check shares no code with the server's signer. The package's `verify` reads the wall clock for its
 * timestamp tolerance; tests run on an injected clock, so the tolerance is checked here against `nowSeconds`
 * and the signature with the package's own `sign` of the same id, timestamp and body.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';

/** True when `webhook-signature` holds a valid v1 signature of id.timestamp.body within the tolerance. */
export function verifyStandardWebhook(
  secret: string,
  headers: IncomingHttpHeaders,
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (typeof id !== 'string' || typeof timestamp !== 'string' || typeof signatures !== 'string') return false;
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;
  const expected = new Webhook(secret).sign(id, new Date(Number(timestamp) * 1000), body);
  return signatures.split(' ').includes(expected);
}
