/**
 * A sandbox card network, so anyone can try signed mandates: a signing key pair and its JWKS kept in a
 * directory, registered in a trust list, and a signer producing detached RFC 7797 signatures.
 * Backs `tessera network init` and `tessera network sign`; functions return values and never print.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { calculateJwkThumbprint, exportJWK, FlattenedSign, generateKeyPair, importJWK, type JWK } from 'jose';
import { MandateArtefact, NETWORK_ID, type Recurrence } from './mandate.ts';
import { parseStrictJson } from './strict-json.ts';
import { parseTrustList, type TrustListEntry } from './trust-list.ts';

export type SandboxAlgorithm = 'EdDSA' | 'ES256';

const PRIVATE_KEYS = 'private-keys.json';
const JWKS = 'jwks.json';
const NETWORK = 'network.json';

export interface InitNetworkOptions {
  /** The directory holding the network's keys (created when absent). */
  dir: string;
  /** The signing algorithm of a new key: EdDSA (Ed25519, default) or ES256. */
  alg?: SandboxAlgorithm;
  /** The network id mandates name in `network` (default `sandbox`). */
  id?: string;
  name?: string;
  /** Add a new signing key even when one exists; older public keys stay published so earlier mandates still verify. */
  rotate?: boolean;
  /** The trust list to register the network in (default `<dir>/trust-list.json`). */
  trustList?: string;
}

export interface InitNetworkResult {
  networkId: string;
  name: string;
  kid: string;
  alg: SandboxAlgorithm;
  /** False when the directory already held a key and `rotate` was not asked. */
  created: boolean;
  jwksPath: string;
  privateKeysPath: string;
  trustListPath: string;
  /** A human summary, ready to print. */
  summary: string;
}

interface NetworkFile {
  id: string;
  name: string;
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Writes through a temporary file and a rename, so readers never see half a file. */
async function writeAtomic(path: string, text: string, mode = 0o644): Promise<void> {
  const tmp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, text, { mode });
  await rename(tmp, path);
}

async function newKey(alg: SandboxAlgorithm): Promise<{ privateJwk: JWK; publicJwk: JWK }> {
  const pair = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const publicJwk: JWK = await exportJWK(pair.publicKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  const meta = { kid, alg, use: 'sig' };
  return { privateJwk: { ...(await exportJWK(pair.privateKey)), ...meta }, publicJwk: { ...publicJwk, ...meta } };
}

/** Adds or replaces `entry` (by id) in the trust list at `path`, creating the file when absent. */
export async function upsertTrustListNetwork(path: string, entry: TrustListEntry): Promise<void> {
  const text = await readFile(path, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  const list = text === undefined ? { networks: [] } : parseTrustList(text, path);
  const networks = [...list.networks.filter((n) => n.id !== entry.id), entry];
  await mkdir(dirname(path), { recursive: true });
  await writeAtomic(path, `${JSON.stringify({ networks }, null, 2)}\n`);
}

/**
 * Creates the sandbox network in `dir` (or, with `rotate`, adds a new current key), writes its
 * public JWKS and registers it in the trust list with a `jwksFile` entry. Idempotent without `rotate`.
 */
export async function initSandboxNetwork(opts: InitNetworkOptions): Promise<InitNetworkResult> {
  const dir = resolve(opts.dir);
  const trustListPath = resolve(opts.trustList ?? join(dir, 'trust-list.json'));
  const privateKeysPath = join(dir, PRIVATE_KEYS);
  const jwksPath = join(dir, JWKS);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const existing = await readJson<{ keys: JWK[] }>(privateKeysPath);
  const meta = (await readJson<NetworkFile>(join(dir, NETWORK))) ?? {
    id: opts.id ?? 'sandbox',
    name: opts.name ?? 'Tessera Sandbox Network',
  };
  if (!NETWORK_ID.test(meta.id))
    throw new Error(`The network id "${meta.id}" must be lower case letters, digits, ".", "_" or "-".`);
  let keys = existing?.keys ?? [];
  const created = keys.length === 0 || opts.rotate === true;
  if (created) {
    const { privateJwk } = await newKey(opts.alg ?? 'EdDSA');
    keys = [privateJwk, ...keys];
    await writeAtomic(join(dir, NETWORK), `${JSON.stringify(meta, null, 2)}\n`);
    await writeAtomic(privateKeysPath, `${JSON.stringify({ keys }, null, 2)}\n`, 0o600);
    const publicKeys = keys.map(({ d: _d, ...pub }) => pub);
    await writeAtomic(jwksPath, `${JSON.stringify({ keys: publicKeys }, null, 2)}\n`);
  }
  await upsertTrustListNetwork(trustListPath, {
    id: meta.id,
    name: meta.name,
    jwksFile: relative(dirname(trustListPath), jwksPath),
  });
  const current = keys[0]!;
  const alg = current.alg as SandboxAlgorithm;
  const verb = !created ? 'already exists' : opts.rotate ? 'has a new signing key' : 'was created';
  const summary = [
    `Network "${meta.id}" (${meta.name}) ${verb}.`,
    `  signing key: ${current.kid} (${alg}), private keys in ${privateKeysPath}`,
    `  public JWKS: ${jwksPath}`,
    `  trust list:  ${trustListPath} (point MANDATE_TRUST_LIST here unless it is the default)`,
  ].join('\n');
  return {
    networkId: meta.id,
    name: meta.name,
    kid: current.kid!,
    alg,
    created,
    jwksPath,
    privateKeysPath,
    trustListPath,
    summary,
  };
}

export interface SignMandateOptions {
  /** The network directory made by `initSandboxNetwork`. */
  dir: string;
  /** The mandate artefact as text; these exact bytes are signed (RFC 7797 `b64: false`). */
  payload: string;
}

export interface SignedMandate {
  payload: string;
  /** Compact JWS with the payload detached: `<protected>..<signature>`. */
  signature: string;
  kid: string;
  alg: string;
  /** A ready `POST /v1/mandates/verify` body (JSON text) for the mandate's first merchant. */
  verifyRequest: string;
}

/**
 * Signs a mandate with the network's current key: a detached JWS over the exact payload bytes, with
 * `{ alg, kid, b64: false, crit: ["b64"] }`. The payload must be a valid artefact naming this network.
 */
export async function signSandboxMandate(opts: SignMandateOptions): Promise<SignedMandate> {
  const dir = resolve(opts.dir);
  const keys = await readJson<{ keys: JWK[] }>(join(dir, PRIVATE_KEYS));
  const meta = await readJson<NetworkFile>(join(dir, NETWORK));
  const jwk = keys?.keys[0];
  if (!jwk || !meta)
    throw new Error(`No sandbox network in ${dir}: run \`tessera network init --dir ${opts.dir}\` first.`);
  const parsed = MandateArtefact.safeParse(parseStrictJson(opts.payload));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`The mandate is invalid at ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  if (parsed.data.network !== meta.id)
    throw new Error(`The mandate names network "${parsed.data.network}", but this network is "${meta.id}".`);
  const alg = jwk.alg!;
  const jws = await new FlattenedSign(new TextEncoder().encode(opts.payload))
    .setProtectedHeader({ alg, kid: jwk.kid!, b64: false, crit: ['b64'] })
    .sign(await importJWK(jwk, alg));
  const signature = `${jws.protected}..${jws.signature}`;
  const merchantId = parsed.data.merchantScope.merchantIds[0];
  const verifyRequest = JSON.stringify({ payload: opts.payload, signature, merchantId }, null, 2);
  return { payload: opts.payload, signature, kid: jwk.kid!, alg, verifyRequest };
}

export interface DraftMandateOptions {
  merchantId: string;
  amountMinor: number;
  currency: string;
  now: Date;
  networkId?: string;
  /** Validity from `now`, in seconds (default one day). */
  ttlSeconds?: number;
  recurrence?: Recurrence;
}

/** A fresh example mandate artefact (pretty JSON text) with a random jti, for trying the flow. */
export function draftMandate(opts: DraftMandateOptions): string {
  const expires = new Date(opts.now.getTime() + (opts.ttlSeconds ?? 86_400) * 1000);
  const mandate = {
    mandateId: `sbx-mandate-${randomBytes(6).toString('hex')}`,
    network: opts.networkId ?? 'sandbox',
    issuer: 'Sandbox Issuing Bank',
    credentialRef: `sbx-token-${randomBytes(8).toString('hex')}`,
    merchantScope: { merchantIds: [opts.merchantId] },
    amountLimit: { amountMinor: opts.amountMinor, currency: opts.currency },
    issuedAt: opts.now.toISOString(),
    expiresAt: expires.toISOString(),
    recurrence: opts.recurrence ?? 'once',
    jti: randomBytes(16).toString('base64url'),
  };
  return `${JSON.stringify(mandate, null, 2)}\n`;
}
