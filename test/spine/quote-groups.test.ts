/**
 * Quotes arriving while one is inserted are inserted together, in one statement and one commit
 * (src/storage/plain-row-groups.ts): over REST, twenty concurrent quotes of one tier, each its own quantity, are all
 * answered with their own figures, and each reserves exactly what it quoted; a group whose statement fails inserts its
 * rows one by one, so one bad row fails alone.
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

test('a quote group whose statement fails inserts its rows one by one: only the bad row fails', async () => {
  const s = await shopWithTier(h, { capacity: 20, priceMinor: 1500 });
  const made = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  const stored = await h.db.fork().findOneOrFail(Quote, { id: made.quoteId });
  const copy = (id: string, quantity: number) => ({ ...stored, id, quantity });
  const ids = ['quote_group_a', 'quote_group_bad', 'quote_group_b', 'quote_group_lead'];
  const groups = plainRowGroups(h.db, Quote);
  const settled = await Promise.allSettled([
    groups.insert(copy(ids[3]!, 1)), // the four arrive in one turn and form one group
    groups.insert(copy(ids[0]!, 2)),
    groups.insert(copy(ids[1]!, 0)), // refused by the table's check (quantity >= 1)
    groups.insert(copy(ids[2]!, 3)),
  ]);
  assert.deepEqual(
    settled.map((r) => r.status),
    ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
  );
  const rows = await h.db.bound<{ id: string; quantity: number }>(
    'select id, quantity from quotes where id = any($1) order by id',
    [ids],
  );
  assert.deepEqual(rows, [
    { id: 'quote_group_a', quantity: 2 },
    { id: 'quote_group_b', quantity: 3 },
    { id: 'quote_group_lead', quantity: 1 },
  ]);
});
