/**
 * The spine's behaviours asserted once and run over every surface (REST, MCP in-memory, MCP HTTP, A2A):
 * each restriction error, idempotent replay and conflicting reuse, the 202 path completed by a signed
 * provider event, and the late-success refund path.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { SURFACES } from '../support/surfaces.ts';
import { must, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

/** Adds a tier with `restrictions` to the shop's event and pool. */
async function tier(shop: Shop, restrictions: Record<string, unknown>, capacity?: number): Promise<string> {
  let poolId = shop.poolId;
  if (capacity !== undefined)
    poolId = must(
      await shop.api.post('/v1/integration/pools', { merchantId: shop.shopId, eventId: shop.eventId, capacity }),
      201,
    ).id;
  return must(
    await shop.api.post('/v1/integration/tiers', {
      eventId: shop.eventId,
      poolId,
      name: 'T',
      priceMinor: 1000,
      ...restrictions,
    }),
    201,
  ).id;
}

for (const surface of SURFACES) {
  describe(`the spine over ${surface.name}`, () => {
    test('each restriction is refused with its own code, and nothing is held', async () => {
      const shop = await shopWithTier(h, { capacity: 20 });
      const day = 86_400_000;
      const now = h.clock.now().getTime();
      const cases: [Record<string, unknown>, Record<string, unknown>, string, number?][] = [
        [{ onSaleStart: new Date(now + day).toISOString() }, {}, 'not_on_sale_yet'],
        [
          { onSaleEnd: new Date(now - day).toISOString(), onSaleStart: new Date(now - 2 * day).toISOString() },
          {},
          'sale_ended',
        ],
        [{ sellable: false }, {}, 'not_sellable'],
        [{ maxQtyPerPurchase: 2 }, { quantity: 3 }, 'quantity_over_limit'],
        [{ allowedGeos: ['HU'] }, { country: 'US' }, 'geo_not_allowed'],
        [{ allowedGeos: ['HU'] }, {}, 'country_required'],
        [{ allowedSchemes: ['visa'] }, { scheme: 'amex' }, 'scheme_not_allowed'],
        [{ allowedSchemes: ['visa'] }, {}, 'scheme_required'],
        [{}, { quantity: 2 }, 'sold_out', 1],
      ];
      const { call, done } = await surface.connect(h, shop.apiKey);
      try {
        for (const [restrictions, extra, code, capacity] of cases) {
          const tierId = await tier(shop, restrictions, capacity);
          const r = await call('quote', { tierId, quantity: 1, ...extra });
          assert.equal(r.ok, false, `${code}: ${JSON.stringify(r)}`);
          assert.equal(!r.ok && r.code, code);
        }
        const ok = await call('quote', {
          tierId: await tier(shop, { allowedGeos: ['HU'], allowedSchemes: ['visa'] }),
          quantity: 1,
          country: 'HU',
          scheme: 'visa',
        });
        assert.ok(ok.ok, JSON.stringify(ok));
      } finally {
        await done();
      }
      assert.equal((await assertInvariant(h.db, shop.poolId)).held, 0);
    });

    test('a reserve replays for the same key and body, and a reused key with another body is refused', async () => {
      const shop = await shopWithTier(h, { capacity: 5 });
      const { call, done } = await surface.connect(h, shop.apiKey);
      try {
        const q1 = await call('quote', { tierId: shop.tierId, quantity: 1 });
        const q2 = await call('quote', { tierId: shop.tierId, quantity: 1 });
        assert.ok(q1.ok && q2.ok);
        const key = randomUUID();
        const first = await call('reserve', { quoteId: q1.output.quoteId }, { idempotencyKey: key });
        const again = await call('reserve', { quoteId: q1.output.quoteId }, { idempotencyKey: key });
        assert.ok(first.ok && again.ok);
        assert.equal(again.replayed, true);
        assert.deepEqual(again.output, first.output);
        const conflict = await call('reserve', { quoteId: q2.output.quoteId }, { idempotencyKey: key });
        assert.equal(!conflict.ok && conflict.code, 'idempotency_conflict');
        assert.deepEqual(await assertInvariant(h.db, shop.poolId), { capacity: 5, available: 4, held: 1, sold: 0 });
      } finally {
        await done();
      }
    });

    test(`${verifies('SPEC-3-confirm-async-202')}an asynchronous payment answers pending, and the provider’s signed event completes the order`, async () => {
      const shop = await shopWithTier(h, { capacity: 3 });
      const { call, done } = await surface.connect(h, shop.apiKey);
      try {
        const q = await call('quote', { tierId: shop.tierId, quantity: 2 });
        const r = await call('reserve', { quoteId: q.ok && q.output.quoteId }, { idempotencyKey: randomUUID() });
        assert.ok(r.ok);
        const id = r.output.reservation.id;
        const c = await call(
          'confirm',
          { id, paymentMethod: 'pm_sandbox_async_success' },
          { idempotencyKey: randomUUID() },
        );
        assert.ok(c.ok, JSON.stringify(c));
        if (surface.name === 'rest') assert.equal(c.status, 202);
        assert.equal(c.output.reservation.state, 'confirming');
        assert.equal(c.output.payment.state, 'pending');
        const second = await call(
          'confirm',
          { id, paymentMethod: 'pm_sandbox_async_success' },
          { idempotencyKey: randomUUID() },
        );
        assert.ok(second.ok);
        assert.equal(second.output.payment.id, c.output.payment.id, 'a second confirm never charges again');
        h.clock.advance(3000);
        await h.app.services.payments.settleDue();
        const after = await call('get_reservation', { id });
        assert.ok(after.ok);
        assert.equal(after.output.reservation.state, 'completed');
        assert.equal(after.output.order.tickets.length, 2);
        assert.deepEqual(await assertInvariant(h.db, shop.poolId), { capacity: 3, available: 1, held: 0, sold: 2 });
      } finally {
        await done();
      }
    });

    test('a payment that succeeds after its places were resold is refunded, never oversold', async () => {
      const shop = await shopWithTier(h, { capacity: 1, holdMinutes: 5 });
      const { call, done } = await surface.connect(h, shop.apiKey);
      try {
        const q = await call('quote', { tierId: shop.tierId, quantity: 1 });
        const r = await call('reserve', { quoteId: q.ok && q.output.quoteId }, { idempotencyKey: randomUUID() });
        assert.ok(r.ok);
        const id = r.output.reservation.id;
        const c = await call(
          'confirm',
          { id, paymentMethod: 'pm_sandbox_async_success' },
          { idempotencyKey: randomUUID() },
        );
        assert.ok(c.ok);
        // The provider stays silent past the payment deadline: the sweeper gives the place back and someone else buys
        // it.
        h.clock.advance(60 * 60_000);
        await h.app.sweeper.sweepExpiredHolds();
        const q2 = await call('quote', { tierId: shop.tierId, quantity: 1 });
        const r2 = await call('reserve', { quoteId: q2.ok && q2.output.quoteId }, { idempotencyKey: randomUUID() });
        assert.ok(r2.ok, JSON.stringify(r2));
        const c2 = await call(
          'confirm',
          { id: r2.output.reservation.id, paymentMethod: 'pm_sandbox_visa' },
          { idempotencyKey: randomUUID() },
        );
        assert.ok(c2.ok);
        await h.app.services.payments.settleDue();
        const late = await call('get_reservation', { id });
        assert.ok(late.ok);
        assert.equal(late.output.payment.state, 'refunded');
        assert.notEqual(late.output.reservation.state, 'completed');
        assert.deepEqual(await assertInvariant(h.db, shop.poolId), { capacity: 1, available: 0, held: 0, sold: 1 });
      } finally {
        await done();
      }
    });
  });
}
