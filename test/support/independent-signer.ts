/**
 * An independent mandate signer for tests, written with Node's crypto only (never jose), so the
 * server's verifier is checked against a second implementation; plus trust-list files in a temp dir.
 */
import { constants, createHmac, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type TestAlg = 'EdDSA' | 'ES256' | 'PS256';

export interface TestKey {
  alg: TestAlg;
  kid: string;
  privateKey: KeyObject;
  publicJwk: Record<string, unknown>;
}

/** A fresh key pair for `alg`, with its public JWK carrying `kid`, `alg` and `use: sig`. */
export function makeKey(alg: TestAlg, kid = `${alg.toLowerCase()}-${randomBytes(4).toString('hex')}`): TestKey {
  const pair =
    alg === 'EdDSA'
      ? generateKeyPairSync('ed25519')
      : alg === 'ES256'
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    alg,
    kid,
    privateKey: pair.privateKey,
    publicJwk: { ...pair.publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' },
  };
}

export const jwksOf = (...keys: TestKey[]) => ({ keys: keys.map((k) => k.publicJwk) });

const b64u = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** The raw JWS signature over `input` (Ed25519; ECDSA P-256 in IEEE P1363 form; RSASSA-PSS SHA-256, salt 32). */
export function rawSign(key: TestKey, input: Buffer): Buffer {
  switch (key.alg) {
    case 'EdDSA':
      return sign(null, input, key.privateKey);
    case 'ES256':
      return sign('sha256', input, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
    case 'PS256':
      return sign('sha256', input, { key: key.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 });
  }
}

/** HS256 over `input` with `secret` (for alg-confusion attempts). */
export const hmacSign = (secret: Buffer) => (input: Buffer) => createHmac('sha256', secret).update(input).digest();

export interface SignOptions {
  /** The protected header (default `{ alg, kid, b64: false, crit: ["b64"] }`). */
  header?: Record<string, unknown>;
  /** Replaces the signing function (default: the key's own algorithm). */
  signer?: (input: Buffer) => Buffer;
}

/**
 * A compact detached JWS over `payload`. The signing input is `ASCII(protected) || "." || payload`:
 * the payload's own UTF-8 bytes when the header says `b64: false`, else its base64url form.
 */
export function signDetached(key: TestKey, payload: string, opts: SignOptions = {}): string {
  const header = opts.header ?? { alg: key.alg, kid: key.kid, b64: false, crit: ['b64'] };
  const protectedB64 = b64u(JSON.stringify(header));
  const body = header.b64 === false ? Buffer.from(payload, 'utf8') : Buffer.from(b64u(payload), 'ascii');
  const input = Buffer.concat([Buffer.from(`${protectedB64}.`, 'ascii'), body]);
  return `${protectedB64}..${b64u((opts.signer ?? ((i: Buffer) => rawSign(key, i)))(input))}`;
}

/** A mandate artefact as pretty JSON text: valid for an hour from `now` at `merchantId`, unless overridden. */
export function mandateText(now: Date, merchantId: string, over: Record<string, unknown> = {}): string {
  const m = {
    mandateId: `m-${randomBytes(4).toString('hex')}`,
    network: 'testnet',
    issuer: 'Test Issuing Bank',
    credentialRef: 'ntk_4f6b2c',
    merchantScope: { merchantIds: [merchantId] },
    amountLimit: { amountMinor: 25_000, currency: 'EUR' },
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + 3_600_000).toISOString(),
    recurrence: 'once',
    jti: randomBytes(16).toString('base64url'),
    ...over,
  };
  return JSON.stringify(m, null, 2);
}

/** Writes a trust list to a fresh temp dir: `testnet` from a JWKS file, plus any inline networks. */
export function writeTrustList(
  testnet: TestKey[],
  more: Array<Record<string, unknown>> = [],
): { dir: string; path: string; jwksPath: string; rewriteJwks: (keys: TestKey[]) => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-trust-'));
  const jwksPath = join(dir, 'testnet-jwks.json');
  const rewriteJwks = (keys: TestKey[]) => writeFileSync(jwksPath, JSON.stringify(jwksOf(...keys)));
  rewriteJwks(testnet);
  const path = join(dir, 'trust-list.json');
  writeFileSync(
    path,
    JSON.stringify({ networks: [{ id: 'testnet', name: 'Test Network', jwksFile: 'testnet-jwks.json' }, ...more] }),
  );
  return { dir, path, jwksPath, rewriteJwks };
}
