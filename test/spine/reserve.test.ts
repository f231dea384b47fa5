import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { key, must, reserveOne, shopWithTier, startSpineHarness } from '../support/spine.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

test('reserve holds the quoted places at the quoted price until the shop hold time', async () => {
  const s = await shopWithTier(h, { capacity: 5, priceMinor: 1000, feePerTicketMinor: 100, holdMinutes: 7 });
  const q = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 2 }), 201);
  const { reservation } = must(await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  assert.match(reservation.id, /^rsv_/);
  assert.equal(reservation.state, 'held');
  assert.equal(reservation.totalMinor, 2200);
  assert.equal(new Date(reservation.expiresAt).getTime() - h.clock.now().getTime(), 7 * 60_000);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [3, 2]);
  const pools = must(await s.api.get(`/v1/integration/pools?merchantId=${s.shopId}`), 200);
  assert.equal(pools.pools[0].availableCount, 3);
});

test(`${verifies('CONTRACT-idempotency-replay')}a quote is held once: the same key replays, a new key by the same caller gets the same hold, another organization not_found`, async () => {
  const s = await shopWithTier(h);
  const q = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  const k = key();
  const first = must(await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, k), 201);
  const replay = await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, k);
  assert.equal(replay.status, 201);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(replay.body, first);
  // Natural idempotency: the same caller reserving the same quote again gets the same reservation, not a second hold.
  const again = await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key());
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), null);
  assert.deepEqual(again.body.reservation, first.reservation);
  const other = await shopWithTier(h);
  const foreign = await other.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key());
  assert.deepEqual([foreign.status, foreign.body.code], [404, 'not_found']);
  const c = await assertInvariant(h.db, s.poolId);
  assert.equal(c.held, 1);
});

test(`${verifies('CONTRACT-idempotency-conflict')}the same Idempotency-Key with a different body is 422 idempotency_conflict; no key is 400`, async () => {
  const s = await shopWithTier(h);
  const q1 = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  const q2 = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  const k = key();
  must(await s.api.post('/v1/ticketing/reservations', { quoteId: q1.quoteId }, k), 201);
  const conflict = await s.api.post('/v1/ticketing/reservations', { quoteId: q2.quoteId }, k);
  assert.equal(conflict.status, 422);
  assert.equal(conflict.body.code, 'idempotency_conflict');
  const missing = await s.api.post('/v1/ticketing/reservations', { quoteId: q2.quoteId });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'missing_idempotency_key');
  const c = await assertInvariant(h.db, s.poolId);
  assert.equal(c.held, 1);
});

test('an expired quote is refused with 410 quote_expired', async () => {
  const s = await shopWithTier(h);
  const q = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  h.clock.advance(15 * 60_000);
  const res = await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key());
  assert.equal(res.status, 410);
  assert.equal(res.body.code, 'quote_expired');
  await assertInvariant(h.db, s.poolId);
});

test('the sale window is checked again at reserve time', async () => {
  const end = new Date(h.clock.now().getTime() + 5 * 60_000).toISOString();
  const s = await shopWithTier(h, { restrictions: { onSaleEnd: end } });
  const q = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  h.clock.advance(6 * 60_000);
  const res = await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key());
  assert.equal(res.status, 409);
  assert.equal(res.body.code, 'sale_ended');
  const c = await assertInvariant(h.db, s.poolId);
  assert.equal(c.held, 0);
});

test('places taken after the quote make reserve answer sold_out with details.available', async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const q = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 2 }), 201);
  await reserveOne(s.api, s.tierId, 2);
  const res = await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key());
  assert.equal(res.status, 409);
  assert.equal(res.body.code, 'sold_out');
  assert.equal(res.body.details.available, 1);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [1, 2]);
});

test("another organization's quote and reservation answer 404", async () => {
  const s = await shopWithTier(h);
  const q = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  const { reservation } = await reserveOne(s.api, s.tierId);
  const other = restClient(h.url, (await h.merchant()).apiKey);
  const res = await other.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key());
  assert.equal(res.status, 404);
  for (const r of [
    await other.get(`/v1/ticketing/reservations/${reservation.id}`),
    await other.post(
      `/v1/ticketing/reservations/${reservation.id}/confirm`,
      { paymentMethod: 'pm_sandbox_visa' },
      key(),
    ),
    await other.post(`/v1/ticketing/reservations/${reservation.id}/release`, {}),
  ]) {
    assert.equal(r.status, 404, JSON.stringify(r.body));
    assert.equal(r.body.code, 'not_found');
  }
  const c = await assertInvariant(h.db, s.poolId);
  assert.equal(c.held, 1);
});

test('a buyer session owns its reservation; another buyer gets 404, the shop organization sees it', async () => {
  const s = await shopWithTier(h);
  const sign = (sub: string) =>
    h.app.authenticator.sign({ typ: 'buyer', sub, sid: `ses_${sub}`, mode: 'full', mid: s.shopId }, 3600);
  const alice = restClient(h.url, await sign('byr_alice0000000000'));
  const bob = restClient(h.url, await sign('byr_bob000000000000'));
  const { reservation } = await reserveOne(alice, s.tierId);
  must(await alice.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.equal((await bob.get(`/v1/ticketing/reservations/${reservation.id}`)).status, 404);
  must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  await assertInvariant(h.db, s.poolId);
});

test(`${verifies('SPEC-2.1-oversell-arbiter', 'CONTRACT-pool-invariant')}200 concurrent reserves on a 50-place pool yield exactly 50 holds and availableCount 0`, async () => {
  const s = await shopWithTier(h, { capacity: 50 });
  const quotes = await Promise.all(
    Array.from({ length: 200 }, async () =>
      must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201),
    ),
  );
  await assertInvariant(h.db, s.poolId);
  const results = await Promise.all(
    quotes.map((q) => s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key())),
  );
  const statuses = results.map((r) => r.status);
  assert.equal(
    statuses.filter((x) => x === 201).length,
    50,
    JSON.stringify(results.find((r) => r.status !== 201 && r.status !== 409)?.body),
  );
  assert.equal(statuses.filter((x) => x === 409).length, 150);
  assert.ok(results.filter((r) => r.status === 409).every((r) => r.body.code === 'sold_out'));
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [0, 50, 0]);
});
