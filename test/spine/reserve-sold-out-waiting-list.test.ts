/**
 * Issue #37 (6): `sold_out` from reserve says the tier's waiting list is open (`details.waitingList: true`), as quote's
 * refusal does, for one tier and for several lines (the short pool's tier); a closed list gives no hint.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { key, must, reserveOne, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

test('reserve’s sold_out carries details.waitingList when the tier’s list is open, and not when it is closed', async () => {
  const s = await shopWithTier(h, { capacity: 1 });
  const late = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  const closedLate = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  await reserveOne(s.api, s.tierId, 1);
  const refused = await s.api.post('/v1/ticketing/reservations', { quoteId: late.quoteId }, key());
  assert.equal(refused.status, 409);
  assert.deepEqual(refused.body.details, { available: 0, requested: 1, waitingList: true });

  must(await s.api.put(`/v1/integration/tiers/${s.tierId}/waiting-list`, { enabled: false }), 200);
  const closed = await s.api.post('/v1/ticketing/reservations', { quoteId: closedLate.quoteId }, key());
  assert.equal(closed.status, 409);
  assert.deepEqual(closed.body.details, { available: 0, requested: 1 });
});

test('a multi-line reserve refused on one pool carries the hint of that pool’s tier', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const pool = must(
    await s.api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: s.eventId, capacity: 1 }),
    201,
  );
  const small = must(
    await s.api.post('/v1/integration/tiers', { eventId: s.eventId, poolId: pool.id, name: 'Box', priceMinor: 9000 }),
    201,
  );
  const lines = [
    { tierId: s.tierId, quantity: 2 },
    { tierId: small.id, quantity: 1 },
  ];
  const quote = must(await s.api.post('/v1/ticketing/quotes', { lines }), 201);
  await reserveOne(s.api, small.id, 1);
  const refused = await s.api.post('/v1/ticketing/reservations', { quoteId: quote.quoteId }, key());
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 'sold_out');
  assert.equal(refused.body.details.waitingList, true);
  assert.equal(refused.body.details.available, 0);
});
