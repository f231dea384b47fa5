/**
 * The sandbox network behind `tessera network init|sign`: keys in a directory, a trust list, and mandates the server
 * verifies.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { draftMandate, initSandboxNetwork, signSandboxMandate } from '../../src/mandates/sandbox-network.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';

let dir: string;
let h: Harness;
let network: Awaited<ReturnType<typeof initSandboxNetwork>>;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tessera-sandbox-network-'));
  network = await initSandboxNetwork({ dir: join(dir, 'sandbox') });
  h = await startHarness({ MANDATE_TRUST_LIST: network.trustListPath });
});
after(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

test('network init writes an Ed25519 key, a public-only JWKS and a trust list naming it', () => {
  assert.equal(network.created, true);
  assert.equal(network.networkId, 'sandbox');
  assert.equal(network.alg, 'EdDSA');
  assert.equal(statSync(network.privateKeysPath).mode & 0o777, 0o600);
  const jwks = readJson(network.jwksPath);
  assert.equal(jwks.keys.length, 1);
  assert.equal(jwks.keys[0].kid, network.kid);
  assert.equal(jwks.keys[0].crv, 'Ed25519');
  assert.equal('d' in jwks.keys[0], false, 'the JWKS must not carry the private key');
  assert.deepEqual(readJson(network.trustListPath), {
    networks: [{ id: 'sandbox', name: 'Tessera Sandbox Network', jwksFile: 'jwks.json' }],
  });
  assert.match(network.summary, /was created/);
});

test('a drafted mandate signed by the sandbox network verifies over REST', async () => {
  const m = await h.merchant(['merchant:read']);
  const payload = draftMandate({ merchantId: m.shopId, amountMinor: 12_000, currency: 'EUR', now: h.clock.now() });
  const signed = await signSandboxMandate({ dir: join(dir, 'sandbox'), payload });
  const [header] = signed.signature.split('..');
  assert.deepEqual(JSON.parse(Buffer.from(header!, 'base64url').toString()), {
    alg: 'EdDSA',
    kid: network.kid,
    b64: false,
    crit: ['b64'],
  });
  const res = await restClient(h.url, m.apiKey).post('/v1/mandates/verify', JSON.parse(signed.verifyRequest));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.mandate.amountLimit.amountMinor, 12_000);
  assert.deepEqual(res.body.network, { id: 'sandbox', name: 'Tessera Sandbox Network' });
});

test('init again is a no-op; with rotate it adds an ES256 key and mandates signed with either key verify', async () => {
  const m = await h.merchant(['merchant:read']);
  const api = restClient(h.url, m.apiKey);
  const sandboxDir = join(dir, 'sandbox');
  const older = await signSandboxMandate({
    dir: sandboxDir,
    payload: draftMandate({ merchantId: m.shopId, amountMinor: 500, currency: 'EUR', now: h.clock.now() }),
  });
  const again = await initSandboxNetwork({ dir: sandboxDir });
  assert.equal(again.created, false);
  assert.equal(again.kid, network.kid);
  const rotated = await initSandboxNetwork({ dir: sandboxDir, rotate: true, alg: 'ES256' });
  assert.equal(rotated.created, true);
  assert.notEqual(rotated.kid, network.kid);
  assert.equal(readJson(rotated.jwksPath).keys.length, 2);
  const newer = await signSandboxMandate({
    dir: sandboxDir,
    payload: draftMandate({ merchantId: m.shopId, amountMinor: 500, currency: 'EUR', now: h.clock.now() }),
  });
  assert.equal(newer.alg, 'ES256');
  assert.equal(newer.kid, rotated.kid);
  for (const signed of [older, newer]) {
    const res = await api.post('/v1/mandates/verify', JSON.parse(signed.verifyRequest));
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
});

test('a second network registers in the same trust list beside the first', async () => {
  const second = await initSandboxNetwork({
    dir: join(dir, 'second'),
    id: 'sandbox-two',
    name: 'Second',
    trustList: network.trustListPath,
  });
  assert.deepEqual(
    readJson(network.trustListPath).networks.map((n: { id: string; jwksFile: string }) => [n.id, n.jwksFile]),
    [
      ['sandbox', 'jwks.json'],
      ['sandbox-two', join('..', 'second', 'jwks.json')],
    ],
  );
  const m = await h.merchant(['merchant:read']);
  const payload = draftMandate({
    merchantId: m.shopId,
    amountMinor: 100,
    currency: 'USD',
    now: h.clock.now(),
    networkId: 'sandbox-two',
  });
  const signed = await signSandboxMandate({ dir: join(dir, 'second'), payload });
  assert.equal(second.alg, 'EdDSA');
  const res = await restClient(h.url, m.apiKey).post('/v1/mandates/verify', JSON.parse(signed.verifyRequest));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.network.id, 'sandbox-two');
});

test('signing refuses an invalid mandate or one naming another network', async () => {
  const sandboxDir = join(dir, 'sandbox');
  const now = h.clock.now();
  await assert.rejects(signSandboxMandate({ dir: sandboxDir, payload: '{"network":"sandbox"}' }), /invalid/);
  const foreign = draftMandate({ merchantId: 'shop_x', amountMinor: 1, currency: 'EUR', now, networkId: 'elsewhere' });
  await assert.rejects(signSandboxMandate({ dir: sandboxDir, payload: foreign }), /names network "elsewhere"/);
  await assert.rejects(signSandboxMandate({ dir: join(dir, 'nothing-here'), payload: foreign }), /network init/);
});
