/**
 * verify_signed_mandate over REST: validity window, merchant scope, replay (spent jtis), key rotation and who may call.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { consumeMandateJti } from '../../src/mandates/mandate-jtis.ts';
import { MandateArtefact } from '../../src/mandates/mandate.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import {
  jwksOf,
  makeKey,
  mandateText,
  signDetached,
  writeTrustList,
  type TestKey,
} from '../support/independent-signer.ts';

const HOUR = 3_600_000;
let h: Harness;
let trust: ReturnType<typeof writeTrustList>;
let api: ReturnType<typeof restClient>;
let shopId: string;
let jwksServer: Server;
let served: TestKey[];
let fetches = 0;
const ed = makeKey('EdDSA');
const remote = makeKey('ES256');

before(async () => {
  served = [remote];
  jwksServer = createServer((_req, res) => {
    fetches++;
    res.setHeader('content-type', 'application/jwk-set+json');
    res.end(JSON.stringify(jwksOf(...served)));
  });
  await new Promise<void>((ok) => jwksServer.listen(0, '127.0.0.1', ok));
  const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
  trust = writeTrustList([ed], [{ id: 'remotenet', name: 'Remote Network', jwksUrl }]);
  h = await startHarness({ MANDATE_TRUST_LIST: trust.path });
  const m = await h.merchant(['merchant:read']);
  api = restClient(h.url, m.apiKey);
  shopId = m.shopId;
});
after(async () => {
  await h?.close();
  await new Promise<void>((ok) => jwksServer.close(() => ok()));
  rmSync(trust.dir, { recursive: true, force: true });
});

const fresh = (over: Record<string, unknown> = {}) => mandateText(h.clock.now(), shopId, over);
const body = (payload: string, key: TestKey = ed, merchantId = shopId) => ({
  payload,
  signature: signDetached(key, payload),
  merchantId,
});
const verify = (b: Record<string, unknown>, client = api) => client.post('/v1/mandates/verify', b);

async function refusedWith(b: Record<string, unknown>, status: number, code: string): Promise<void> {
  const res = await verify(b);
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.code, code, JSON.stringify(res.body));
}

test('an expired mandate is mandate_expired', async () => {
  const payload = fresh();
  assert.equal((await verify(body(payload))).status, 200);
  h.clock.advance(HOUR);
  await refusedWith(body(payload), 422, 'mandate_expired');
});

test('a mandate before its notBefore is mandate_not_yet_valid; a minute of clock skew is tolerated', async () => {
  const now = h.clock.now().getTime();
  const later = fresh({
    notBefore: new Date(now + HOUR).toISOString(),
    expiresAt: new Date(now + 2 * HOUR).toISOString(),
  });
  await refusedWith(body(later), 422, 'mandate_not_yet_valid');
  const issuedAhead = fresh({ issuedAt: new Date(now + 30_000).toISOString() });
  assert.equal((await verify(body(issuedAhead))).status, 200);
  h.clock.advance(HOUR);
  assert.equal((await verify(body(later))).status, 200);
});

test('a mandate for another merchant is mandate_merchant_mismatch (403)', async () => {
  const other = await h.merchant(['merchant:read']);
  const payload = fresh({ merchantScope: { merchantIds: [other.shopId] } });
  await refusedWith(body(payload), 403, 'mandate_merchant_mismatch');
  const theirs = await verify(body(payload, ed, other.shopId), restClient(h.url, other.apiKey));
  assert.equal(theirs.status, 200, JSON.stringify(theirs.body));
});

test('a jti spent by consumeMandateJti is mandate_jti_used (409), and cannot be spent twice', async () => {
  const payload = fresh();
  const mandate = MandateArtefact.parse(JSON.parse(payload));
  const spent = await h.db.transaction((em) =>
    consumeMandateJti(em, mandate, { merchantId: shopId, reference: 'rsv_test', at: h.clock.now() }),
  );
  assert.deepEqual(spent, { period: 'once' });
  await refusedWith(body(payload), 409, 'mandate_jti_used');
  await assert.rejects(
    h.db.transaction((em) => consumeMandateJti(em, mandate, { merchantId: shopId, at: h.clock.now() })),
    (err: { code?: string }) => err.code === 'mandate_jti_used',
  );
});

test('a monthly mandate is spent once per calendar month', async () => {
  h.clock.set('2027-03-10T12:00:00Z');
  const payload = fresh({ recurrence: 'monthly', expiresAt: '2027-06-30T00:00:00Z' });
  const mandate = MandateArtefact.parse(JSON.parse(payload));
  await h.db.transaction((em) => consumeMandateJti(em, mandate, { merchantId: shopId, at: h.clock.now() }));
  await refusedWith(body(payload), 409, 'mandate_jti_used');
  h.clock.set('2027-04-01T00:00:00Z');
  const res = await verify(body(payload));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.period, '2027-04');
});

test('a rotated key in the JWKS file is picked up without a restart', async () => {
  const next = makeKey('EdDSA');
  trust.rewriteJwks([ed, next]);
  const res = await verify(body(fresh(), next));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  trust.rewriteJwks([next]);
  h.clock.advance(60_000);
  await refusedWith(body(fresh(), ed), 422, 'mandate_kid_unknown');
});

test('a JWKS URL is cached, and refetched for an unknown kid after the cooldown', async () => {
  const before = fetches;
  assert.equal((await verify(body(fresh({ network: 'remotenet' }), remote))).status, 200);
  assert.equal((await verify(body(fresh({ network: 'remotenet' }), remote))).status, 200);
  assert.equal(fetches - before, 1);
  const rotated = makeKey('PS256');
  served = [remote, rotated];
  h.clock.advance(31_000);
  const res = await verify(body(fresh({ network: 'remotenet' }), rotated));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(fetches - before, 2);
  const unknown = makeKey('ES256');
  await refusedWith(body(fresh({ network: 'remotenet' }), unknown), 422, 'mandate_kid_unknown');
  assert.equal(fetches - before, 2, 'an unknown kid within the cooldown does not refetch');
});

test('callers: no credential is 401, a key without merchant:read is 403, another organization’s shop is 404', async () => {
  const payload = fresh();
  const anon = await verify(body(payload), restClient(h.url));
  assert.equal(anon.status, 401);
  const writer = await h.merchant(['merchant:write']);
  const noRead = await verify(body(payload, ed, writer.shopId), restClient(h.url, writer.apiKey));
  assert.equal(noRead.status, 403);
  assert.equal(noRead.body.code, 'insufficient_scope');
  const other = await h.merchant(['merchant:read']);
  await refusedWith(
    body(fresh({ merchantScope: { merchantIds: [other.shopId] } }), ed, other.shopId),
    404,
    'not_found',
  );
});

test('an unknown request field is 400 unknown_field', async () => {
  const payload = fresh();
  await refusedWith({ ...body(payload), mandate: JSON.parse(payload) }, 400, 'unknown_field');
});
