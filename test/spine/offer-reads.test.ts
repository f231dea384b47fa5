/**
 * Quotes arriving while a tier's offer is read are read together by the next statement
 * (src/storage/offer-read.ts, `TierOfferReads`): over REST, concurrent quotes of two tiers and of an unknown one each
 * get their own tier's price, and the unknown one its own `not_found`; the reads queued in one turn of the event loop
 * go in one group, and reads of one tier in one group get objects of their own; a group whose statement fails reads
 * its calls one by one, so only the bad call fails.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { tierOfferReads, type TierOffer } from '../../src/storage/offer-read.ts';
import type { Harness } from '../support/harness.ts';
import { eventWithTier, must, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

test('concurrent quotes of two tiers and an unknown one: grouped reads, each quote priced by its own tier', async () => {
  const s = await shopWithTier(h, { capacity: 100, priceMinor: 1500 });
  const other = await eventWithTier(h, s.api, s.shopId, { capacity: 100, priceMinor: 2700, name: 'Balcony' });
  const reads = tierOfferReads(h.db);
  const before = reads.stats;
  const tiers = Array.from({ length: 21 }, (_, i) => (i % 7 === 6 ? 'tier_unknown' : i % 2 ? other.tierId : s.tierId));
  const answers = await Promise.all(tiers.map((tierId) => s.api.post('/v1/ticketing/quotes', { tierId, quantity: 2 })));
  const after = reads.stats;
  assert.equal(after.calls - before.calls, 21);
  assert.ok(after.largest > 1, 'reads arriving while one ran went in one group');
  for (const [i, tierId] of tiers.entries()) {
    const a = answers[i]!;
    if (tierId === 'tier_unknown') {
      assert.equal(a.status, 404);
      assert.equal(a.body.code, 'not_found');
      continue;
    }
    const q = must(a, 201);
    assert.equal(q.tierId, tierId);
    assert.equal(q.totalMinor, (tierId === s.tierId ? 1500 : 2700) * 2);
  }
});

test('reads queued in one turn go in one group, and each gets objects of its own', async () => {
  const s = await shopWithTier(h, { capacity: 10, priceMinor: 900 });
  const reads = tierOfferReads(h.db);
  // The three arrive in one turn of the event loop, while no read runs: one group reads them all.
  const before = reads.stats;
  const [first, a, b] = await Promise.all([reads.read(s.tierId), reads.read(s.tierId), reads.read(s.tierId)]);
  assert.equal(reads.stats.groups - before.groups, 1, 'calls of one turn go in one group, the first included');
  for (const offer of [first, a, b]) {
    assert.equal(offer?.tier.id, s.tierId);
    assert.equal(offer?.tier.priceMinor, 900);
    assert.equal(offer?.available, 10);
  }
  assert.notEqual(a!.tier, b!.tier);
  assert.notEqual(a!.shop, b!.shop);
  assert.deepEqual(a, b);
  assert.equal(await reads.read('tier_unknown'), undefined);
});

test('a group whose read fails reads its calls one by one: only the bad one fails', async () => {
  const s = await shopWithTier(h, { capacity: 10, priceMinor: 900 });
  const reads = tierOfferReads(h.db);
  // A tier id PostgreSQL cannot take as text (a NUL byte) fails the statement of the group it is read in.
  const settled = await Promise.allSettled([
    reads.read(s.tierId), // the three form one group, whose statement fails
    reads.read('tier_\u0000bad'),
    reads.read(s.tierId),
  ]);
  assert.deepEqual(
    settled.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.equal((settled[2] as PromiseFulfilledResult<TierOffer>).value.tier.id, s.tierId);
});
