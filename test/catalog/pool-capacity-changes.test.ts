/**
 * Catalog changes (issue #12 item 4), pool capacity: changed never below held + sold, and the invariant kept while
 * reserves, confirms, releases and capacity, tier and event changes race (catalog-changes.test.ts has the rest).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { confirmWith, key, must, reserveOne, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const patch = (s: Shop, path: string, body: unknown) => s.api.call('PATCH', path, body);

/** The webhook events recorded for a shop, oldest first. */
async function events(shopId: string): Promise<{ type: string; data: any }[]> {
  return h.db.execute<{ type: string; data: any }>(
    'select type, data from webhook_events where shop_id = ? order by id',
    [shopId],
  );
}

describe('pool capacity', () => {
  test('grows and shrinks with availableCount, never below held + sold (refused with the numbers)', async () => {
    const s = await shopWithTier(h, { capacity: 10 });
    await reserveOne(s.api, s.tierId, 3);
    const sold = await reserveOne(s.api, s.tierId, 2);
    must(await confirmWith(s.api, sold.reservation.id, 'pm_sandbox_visa'), 200);
    const refused = await patch(s, `/v1/integration/pools/${s.poolId}`, { capacity: 4 });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'capacity_below_committed');
    assert.deepEqual(refused.body.details, { requested: 4, held: 3, sold: 2, minimum: 5 });
    assert.match(refused.body.message, /3 place\(s\) held and 2 sold; the smallest capacity now is 5/);
    const tight = must(await patch(s, `/v1/integration/pools/${s.poolId}`, { capacity: 5 }), 200);
    assert.deepEqual([tight.capacity, tight.availableCount], [5, 0]);
    assert.equal((await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 })).body.code, 'sold_out');
    const grown = must(await patch(s, `/v1/integration/pools/${s.poolId}`, { capacity: 12 }), 200);
    assert.deepEqual([grown.capacity, grown.availableCount], [12, 7]);
    await assertInvariant(h.db, s.poolId);
    const negative = await patch(s, `/v1/integration/pools/${s.poolId}`, { capacity: -1 });
    assert.deepEqual([negative.status, negative.body.code], [400, 'invalid_input']);
    const updates = (await events(s.shopId)).filter((e) => e.type === 'pool.updated').map((e) => e.data.pool.capacity);
    assert.deepEqual(
      updates.sort((a, b) => a - b),
      [5, 12],
    );
  });

  test('capacity, tier and event changes under concurrent reserves never break the invariant', async () => {
    const s = await shopWithTier(h, { capacity: 30 });
    const quotes = await Promise.all(
      Array.from({ length: 40 }, () =>
        s.api
          .post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 })
          .then((r) => must(r, 201).quoteId as string),
      ),
    );
    const capacities = [10, 35, 5, 25, 0, 40, 15, 30];
    const results = await Promise.all([
      ...quotes.map((quoteId) =>
        s.api
          .post('/v1/ticketing/reservations', { quoteId }, key())
          .then((r) => ({ kind: 'reserve', status: r.status, code: r.body?.code })),
      ),
      ...capacities.map((capacity) =>
        patch(s, `/v1/integration/pools/${s.poolId}`, { capacity }).then((r) => ({
          kind: 'capacity',
          status: r.status,
          code: r.body?.code,
        })),
      ),
      ...[7000, 7100, 7200].map((priceMinor) =>
        patch(s, `/v1/integration/tiers/${s.tierId}`, { priceMinor }).then((r) => ({
          kind: 'tier',
          status: r.status,
          code: r.body?.code,
        })),
      ),
      ...['A', 'B'].map((t) =>
        patch(s, `/v1/integration/events/${s.eventId}`, { title: t }).then((r) => ({
          kind: 'event',
          status: r.status,
          code: r.body?.code,
        })),
      ),
    ]);
    for (const r of results) {
      if (r.kind === 'reserve') assert.ok(r.status === 201 || r.code === 'sold_out', JSON.stringify(r));
      else if (r.kind === 'capacity')
        assert.ok(r.status === 200 || r.code === 'capacity_below_committed', JSON.stringify(r));
      else assert.equal(r.status, 200, JSON.stringify(r));
    }
    const counts = await assertInvariant(h.db, s.poolId);
    assert.equal(counts.held, results.filter((r) => r.kind === 'reserve' && r.status === 201).length);
    assert.ok(counts.capacity >= counts.held + counts.sold);
  });
  test(`${verifies('CONTRACT-pool-invariant')}while reserves, confirms, releases and capacity, tier and event changes race, every observed moment keeps the invariant`, async () => {
    const s = await shopWithTier(h, { capacity: 30 });
    const spare = must(
      await s.api.post('/v1/integration/tiers', {
        eventId: s.eventId,
        poolId: s.poolId,
        name: 'Spare',
        priceMinor: 500,
      }),
      201,
    ).id as string;
    const quotes = await Promise.all(
      Array.from({ length: 36 }, (_, i) =>
        s.api
          .post('/v1/ticketing/quotes', { tierId: i % 4 === 0 ? spare : s.tierId, quantity: 1 })
          .then((r) => must(r, 201).quoteId as string),
      ),
    );
    // A reader samples the pool and its reservations in one statement (one committed state) for as long as the race
    // runs.
    let racing = true;
    let samples = 0;
    const sampler = (async () => {
      while (racing) {
        await assertInvariant(h.db, s.poolId);
        samples++;
      }
    })();
    const outcomes = { confirmed: 0, released: 0 };
    const buyOrGiveBack = async (quoteId: string, i: number) => {
      const r = await s.api.post('/v1/ticketing/reservations', { quoteId }, key());
      if (r.status !== 201) return { kind: 'reserve', status: r.status, code: r.body?.code };
      const id = r.body.reservation.id as string;
      if (i % 3 === 0) {
        const released = await s.api.post(`/v1/ticketing/reservations/${id}/release`, {}, key());
        if (released.status === 200) outcomes.released++;
        return { kind: 'release', status: released.status, code: released.body?.code };
      }
      if (i % 3 === 1) {
        const paid = await confirmWith(s.api, id, 'pm_sandbox_visa');
        if (paid.status === 200) outcomes.confirmed++;
        return { kind: 'confirm', status: paid.status, code: paid.body?.code };
      }
      return { kind: 'reserve', status: 201, code: undefined };
    };
    let results: { kind: string; status: number; code: string | undefined }[];
    try {
      results = await Promise.all([
        ...quotes.map(buyOrGiveBack),
        ...[12, 40, 6, 28, 0, 35].map((capacity) =>
          patch(s, `/v1/integration/pools/${s.poolId}`, { capacity }).then((r) => ({
            kind: 'capacity',
            status: r.status,
            code: r.body?.code,
          })),
        ),
        patch(s, `/v1/integration/tiers/${s.tierId}`, { priceMinor: 8100, maxQtyPerPurchase: 4 }).then((r) => ({
          kind: 'tier',
          status: r.status,
          code: r.body?.code,
        })),
        s.api
          .post(`/v1/integration/tiers/${spare}/retire`, {})
          .then((r) => ({ kind: 'tier', status: r.status, code: r.body?.code })),
        patch(s, `/v1/integration/events/${s.eventId}`, { venue: 'The Other Hall' }).then((r) => ({
          kind: 'event',
          status: r.status,
          code: r.body?.code,
        })),
      ]);
    } finally {
      racing = false;
      await sampler;
    }
    for (const r of results) {
      if (r.kind === 'reserve')
        assert.ok(r.status === 201 || ['sold_out', 'tier_retired'].includes(r.code ?? ''), JSON.stringify(r));
      else if (r.kind === 'capacity')
        assert.ok(r.status === 200 || r.code === 'capacity_below_committed', JSON.stringify(r));
      else if (r.kind === 'release' || r.kind === 'confirm') assert.equal(r.status, 200, JSON.stringify(r));
      else assert.equal(r.status, 200, JSON.stringify(r));
    }
    assert.ok(samples > 0, 'the invariant was observed during the race');
    const counts = await assertInvariant(h.db, s.poolId);
    assert.equal(counts.sold, outcomes.confirmed, 'every confirmed reservation is sold, once');
    assert.equal(counts.held, results.filter((r) => r.kind === 'reserve' && r.status === 201).length);
  });
});
