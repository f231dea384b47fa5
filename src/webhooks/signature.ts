/**
 * Two signature schemes. Merchant webhooks: the Standard Webhooks scheme (https://www.standardwebhooks.com): secrets
 * are `whsec_<base64>`, and `webhook-signature` is `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed with
 * the decoded secret. ACP order webhooks (openapi.agentic_checkout_webhook.yaml): `Merchant-Signature: t=<unix
 * seconds>,v1=<hex HMAC-SHA256 of "{timestamp}.{body}">` keyed with the shared secret's UTF-8 bytes, as Stripe's scheme
 * it follows.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes, base64, with the `whsec_` prefix. */
export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The signature header value for one message (one attempt: the timestamp is the attempt's). */
export function signMessage(secret: string, id: string, timestampSeconds: number, body: string): string {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('not a whsec_ secret');
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The headers of one delivery attempt: `webhook-id` is the event id, stable across retries. */
export function webhookHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Tessera-Webhooks/1.0',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signMessage(secret, id, timestampSeconds, body),
  };
}

/** ACP's `Merchant-Signature` value for one attempt: `t=<unix seconds>,v1=<64 hex>`. */
export function signAcpMessage(secret: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/**
 * The headers of one ACP order-webhook attempt: `Request-Id` is the event id (stable across retries), `Timestamp` RFC
 * 3339.
 */
export function acpWebhookHeaders(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': 'Tessera-Webhooks/1.0',
    'merchant-signature': signAcpMessage(secret, timestampSeconds, body),
    'request-id': id,
    timestamp: new Date(timestampSeconds * 1000).toISOString(),
  };
}
