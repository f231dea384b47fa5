/**
 * Quotes arriving while one is inserted are inserted together, in one statement and one commit
 * (src/storage/plain-row-groups.ts): over REST, twenty concurrent quotes of one tier, each its own quantity, are all
 * answered with their own figures, and each reserves exactly what it quoted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Quote } from '../../src/storage/entities/purchase.ts';
import { plainRowGroups } from '../../src/storage/plain-row-groups.ts';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { key, must, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

test('concurrent quotes are inserted in groups, each with its own quantity and total, and each reserves what it quoted', async () => {
  const s = await shopWithTier(h, { capacity: 200, priceMinor: 1500 });
  const groups = plainRowGroups(h.db, Quote);
  const before = groups.stats;
  const quantities = Array.from({ length: 20 }, (_, i) => 1 + (i % 5));
  const quotes = await Promise.all(
    quantities.map(async (quantity) =>
      must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity }), 201),
    ),
  );
  const after = groups.stats;
  assert.equal(after.calls - before.calls, 20);
  assert.ok(after.largest > 1, 'quotes arriving while one was inserted went in one group');
  assert.equal(new Set(quotes.map((q) => q.quoteId)).size, 20);
  for (const [i, q] of quotes.entries()) {
    assert.equal(q.quantity, quantities[i]);
    assert.equal(q.totalMinor, 1500 * quantities[i]!);
  }
  for (const [i, q] of quotes.entries()) {
    const held = must(await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
    assert.equal(held.reservation.quantity, quantities[i]);
    assert.equal(held.reservation.totalMinor, q.totalMinor);
  }
  await assertInvariant(h.db, s.poolId);
});
