/**
 * verify_signed_mandate over REST: asymmetric signatures from an independent signer (Node crypto), and every
 * signature-level refusal.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import {
  hmacSign,
  makeKey,
  mandateText,
  signDetached,
  writeTrustList,
  type TestKey,
} from '../support/independent-signer.ts';

let h: Harness;
let trust: ReturnType<typeof writeTrustList>;
let api: ReturnType<typeof restClient>;
let shopId: string;
const ed = makeKey('EdDSA');
const es = makeKey('ES256');
const ps = makeKey('PS256');
const stranger = makeKey('EdDSA', ed.kid); // same kid, key not published by the network

before(async () => {
  trust = writeTrustList([ed, es, ps]);
  h = await startHarness({ MANDATE_TRUST_LIST: trust.path });
  const m = await h.merchant(['merchant:read']);
  api = restClient(h.url, m.apiKey);
  shopId = m.shopId;
});
after(async () => {
  await h?.close();
  rmSync(trust.dir, { recursive: true, force: true });
});

const verify = (body: Record<string, unknown>) => api.post('/v1/mandates/verify', body);
const fresh = (over: Record<string, unknown> = {}) => mandateText(h.clock.now(), shopId, over);

async function refusedWith(body: Record<string, unknown>, status: number, code: string): Promise<void> {
  const res = await verify(body);
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.code, code, JSON.stringify(res.body));
  assert.equal(typeof res.body.message, 'string');
}

for (const key of [ed, es, ps]) {
  test(`a mandate signed with ${key.alg} over the unencoded payload (b64:false) verifies`, async () => {
    const payload = fresh();
    const res = await verify({ payload, signature: signDetached(key, payload), merchantId: shopId });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.valid, true);
    assert.deepEqual(res.body.mandate, { ...JSON.parse(payload), notBefore: null });
    assert.deepEqual(res.body.signature, { alg: key.alg, kid: key.kid, b64: false });
    assert.deepEqual(res.body.network, { id: 'testnet', name: 'Test Network' });
    assert.equal(res.body.period, 'once');
  });
}

test('a mandate signed over the base64url-encoded payload (plain RFC 7515 detached) verifies too', async () => {
  const payload = fresh();
  const signature = signDetached(es, payload, { header: { alg: 'ES256', kid: es.kid } });
  const res = await verify({ payload, signature, merchantId: shopId });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.signature.b64, true);
});

test('verifying does not spend the mandate: the same one verifies twice', async () => {
  const payload = fresh();
  const body = { payload, signature: signDetached(ed, payload), merchantId: shopId };
  assert.equal((await verify(body)).status, 200);
  assert.equal((await verify(body)).status, 200);
});

test('a signature by a key the network does not publish is mandate_signature_invalid', async () => {
  const payload = fresh();
  await refusedWith(
    { payload, signature: signDetached(stranger, payload), merchantId: shopId },
    422,
    'mandate_signature_invalid',
  );
  const good = signDetached(ps, payload);
  const flipped = good.slice(0, -6) + (good.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA');
  await refusedWith({ payload, signature: flipped, merchantId: shopId }, 422, 'mandate_signature_invalid');
});

test('tampered payload bytes, even whitespace alone, are mandate_signature_invalid', async () => {
  const payload = fresh();
  const signature = signDetached(ed, payload);
  await refusedWith(
    { payload: payload.replace('25000', '95000'), signature, merchantId: shopId },
    422,
    'mandate_signature_invalid',
  );
  await refusedWith({ payload: `${payload}\n`, signature, merchantId: shopId }, 422, 'mandate_signature_invalid');
  await refusedWith(
    { payload: JSON.stringify(JSON.parse(payload)), signature, merchantId: shopId },
    422,
    'mandate_signature_invalid',
  );
});

test('a kid the network does not publish is mandate_kid_unknown', async () => {
  const payload = fresh();
  const other = makeKey('EdDSA');
  await refusedWith(
    { payload, signature: signDetached(other, payload), merchantId: shopId },
    422,
    'mandate_kid_unknown',
  );
  const noKid = signDetached(ed, payload, { header: { alg: 'EdDSA', b64: false, crit: ['b64'] } });
  await refusedWith({ payload, signature: noKid, merchantId: shopId }, 422, 'mandate_kid_unknown');
});

test('alg none is mandate_alg_not_allowed', async () => {
  const payload = fresh();
  const header = { alg: 'none', kid: ed.kid, b64: false, crit: ['b64'] };
  const unsigned = signDetached(ed, payload, { header, signer: () => Buffer.alloc(0) });
  assert.ok(unsigned.endsWith('..'));
  await refusedWith({ payload, signature: unsigned, merchantId: shopId }, 422, 'mandate_alg_not_allowed');
});

test('HS256 keyed with the network’s public key (alg confusion) is mandate_alg_not_allowed', async () => {
  const payload = fresh();
  const secret = Buffer.from(String(ed.publicJwk.x), 'base64url');
  const header = { alg: 'HS256', kid: ed.kid, b64: false, crit: ['b64'] };
  await refusedWith(
    { payload, signature: signDetached(ed, payload, { header, signer: hmacSign(secret) }), merchantId: shopId },
    422,
    'mandate_alg_not_allowed',
  );
});

test('a header alg other than the one the key is published for is mandate_alg_not_allowed', async () => {
  const payload = fresh();
  const header = { alg: 'ES256', kid: ed.kid, b64: false, crit: ['b64'] };
  await refusedWith(
    { payload, signature: signDetached(es, payload, { header }), merchantId: shopId },
    422,
    'mandate_alg_not_allowed',
  );
});

test('b64:false without crit ["b64"] is mandate_b64_without_crit', async () => {
  const payload = fresh();
  const signature = signDetached(ed, payload, { header: { alg: 'EdDSA', kid: ed.kid, b64: false } });
  await refusedWith({ payload, signature, merchantId: shopId }, 422, 'mandate_b64_without_crit');
});

test('a b64 that is not a boolean (the string "false") is mandate_jws_malformed, listed in crit or not (RFC 7797 §3)', async () => {
  const payload = fresh();
  for (const header of [
    { alg: 'EdDSA', kid: ed.kid, b64: 'false' },
    { alg: 'EdDSA', kid: ed.kid, b64: 'false', crit: ['b64'] },
  ]) {
    await refusedWith(
      { payload, signature: signDetached(ed, payload, { header }), merchantId: shopId },
      422,
      'mandate_jws_malformed',
    );
  }
});

test('an unknown critical header parameter is mandate_crit_unsupported', async () => {
  const payload = fresh();
  const header = {
    alg: 'EdDSA',
    kid: ed.kid,
    b64: false,
    crit: ['b64', 'urn:example:max-uses'],
    'urn:example:max-uses': 3,
  };
  await refusedWith(
    { payload, signature: signDetached(ed, payload, { header }), merchantId: shopId },
    422,
    'mandate_crit_unsupported',
  );
});

test('a missing or empty detached payload is mandate_payload_missing', async () => {
  const payload = fresh();
  const signature = signDetached(ed, payload);
  await refusedWith({ signature, merchantId: shopId }, 422, 'mandate_payload_missing');
  await refusedWith({ payload: '', signature, merchantId: shopId }, 422, 'mandate_payload_missing');
});

test('a JWS with its payload attached, or not a compact JWS, is mandate_jws_malformed', async () => {
  const payload = fresh();
  const [h64, , s64] = signDetached(ed, payload, { header: { alg: 'EdDSA', kid: ed.kid } }).split('.');
  const attached = `${h64}.${Buffer.from(payload).toString('base64url')}.${s64}`;
  await refusedWith({ payload, signature: attached, merchantId: shopId }, 422, 'mandate_jws_malformed');
  await refusedWith({ payload, signature: 'not-a-jws', merchantId: shopId }, 422, 'mandate_jws_malformed');
});

test('a mandate naming a network outside the trust list is mandate_network_untrusted', async () => {
  const payload = fresh({ network: 'othernet' });
  await refusedWith(
    { payload, signature: signDetached(ed, payload), merchantId: shopId },
    422,
    'mandate_network_untrusted',
  );
});

test('a correctly signed artefact that breaks the profile is mandate_invalid', async () => {
  const key: TestKey = ed;
  const extra = fresh({ maxUses: 3 });
  await refusedWith(
    { payload: extra, signature: signDetached(key, extra), merchantId: shopId },
    422,
    'mandate_invalid',
  );
  const pan = fresh({ credentialRef: '4242 4242 4242 4242' });
  await refusedWith({ payload: pan, signature: signDetached(key, pan), merchantId: shopId }, 422, 'mandate_invalid');
  const base = fresh();
  const dup = base.replace('"recurrence": "once"', '"recurrence": "once",\n  "recurrence": "monthly"');
  assert.notEqual(dup, base);
  await refusedWith({ payload: dup, signature: signDetached(key, dup), merchantId: shopId }, 422, 'mandate_invalid');
});
