/**
 * UCP's message signatures (its signatures.md) for order webhooks: RFC 9421 HTTP Message Signatures over `@method`,
 * `@authority`, `@path` (`@query` when present), `ucp-agent`, `content-digest` and `content-type`, ES256 (P-256,
 * raw r||s), `keyid` the key's `kid`; `Content-Digest` is RFC 9530 sha-256 over the raw body. The business key is made
 * once per database and kept sealed with the server secret (as the OAuth signing key); its public JWK is published in
 * the profile's `signing_keys`, where platforms find it by `kid`.
 */
import { createHash, createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { createSigner, httpbis } from 'http-message-signatures';
import type { Database } from '../storage/database.ts';
import { ensureSetting } from '../storage/settings.ts';
import { SecretBox } from './secret-box.ts';

/** The business's UCP signing key: its id, the public JWK published in the profile, the private key. */
export interface UcpSigningKey {
  kid: string;
  publicJwk: JWK;
  privateKey: KeyObject;
}

const SETTING = 'ucp_signing_jwk';

/** Loads the signing key, making it the first time (race-safe across processes on one database). */
export async function loadUcpSigningKey(db: Database, serverSecret: string): Promise<UcpSigningKey> {
  const box = new SecretBox(serverSecret, 'tessera/ucp-signing-key');
  const sealed = await ensureSetting(db, SETTING, () => {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    return box.seal(JSON.stringify(jwk), SETTING);
  });
  const opened = box.open(sealed, SETTING);
  if (!opened) throw new Error('The UCP signing key does not open with this server secret.');
  const jwk = JSON.parse(opened) as JWK;
  const pub = { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y! };
  const kid = `tessera-ucp-${(await calculateJwkThumbprint(pub)).slice(0, 16)}`;
  return {
    kid,
    publicJwk: { kid, ...pub, use: 'sig', alg: 'ES256' },
    privateKey: createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' }),
  };
}

/** RFC 9530 `Content-Digest` of a body: `sha-256=:<base64>:`. */
export const contentDigest = (body: string): string =>
  `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;

export interface UcpWebhookMessage {
  url: string;
  /** The event id (`Webhook-Id`, stable across retries). */
  id: string;
  timestampSeconds: number;
  body: string;
  /** Our business profile URL (`UCP-Agent`), where the platform finds the key. */
  profileUrl: string;
}

/** The headers of one signed UCP order-webhook attempt (Standard Webhooks ids, RFC 9421 signature `sig1`). */
export async function ucpWebhookHeaders(key: UcpSigningKey, m: UcpWebhookMessage): Promise<Record<string, string>> {
  const url = new URL(m.url);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Tessera-Webhooks/1.0',
    'ucp-agent': `profile="${m.profileUrl}"`,
    'webhook-id': m.id,
    'webhook-timestamp': String(m.timestampSeconds),
    'content-digest': contentDigest(m.body),
  };
  const fields = ['@method', '@authority', '@path', ...(url.search ? ['@query'] : [])];
  const signed = await httpbis.signMessage(
    {
      key: createSigner(key.privateKey, 'ecdsa-p256-sha256', key.kid),
      name: 'sig1',
      // UCP: the algorithm follows from the key's curve, so `alg` is not a signature parameter.
      params: ['created', 'keyid'],
      fields: [...fields, 'ucp-agent', 'content-digest', 'content-type'],
      paramValues: { created: new Date(m.timestampSeconds * 1000) },
    },
    { method: 'POST', url, headers },
  );
  return signed.headers as Record<string, string>;
}
