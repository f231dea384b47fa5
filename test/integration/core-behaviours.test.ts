/** The core behaviours of the define-once house, asserted once and run over REST, MCP (in-memory and HTTP) and A2A. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { SURFACES } from '../support/surfaces.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

for (const surface of SURFACES) {
  describe(`over ${surface.name}`, () => {
    test(`${verifies('SPEC-1-one-orchestrator', 'SPEC-2.1-pool-shape', 'SPEC-2.2-tier-restrictions', 'SPEC-4.1-pools-listing')}a merchant creates an event, a pool and a restricted tier, and lists its pools`, async () => {
      const m = await h.merchant();
      const { call, done } = await surface.connect(h, m.apiKey);
      try {
        const event = await call('create_event', {
          merchantId: m.shopId,
          title: 'Opening night',
          startsAt: '2027-03-01T19:00:00Z',
        });
        assert.equal(event.ok, true, JSON.stringify(event));
        const pool = await call('create_pool', {
          merchantId: m.shopId,
          eventId: event.ok && event.output.id,
          capacity: 120,
          title: 'Stalls',
        });
        assert.ok(pool.ok);
        const tier = await call('create_tier', {
          eventId: event.ok && event.output.id,
          poolId: pool.ok && pool.output.id,
          name: 'Early bird',
          priceMinor: 2500,
          onSaleStart: '2026-01-01T00:00:00Z',
          onSaleEnd: '2027-03-01T18:00:00Z',
          maxQtyPerPurchase: 4,
          sellable: true,
          allowedGeos: ['HU', 'AT'],
          allowedSchemes: ['visa', 'mastercard'],
        });
        assert.ok(tier.ok, JSON.stringify(tier));
        assert.equal(tier.output.maxQtyPerPurchase, 4);
        assert.deepEqual(tier.output.allowedGeos, ['HU', 'AT']);
        assert.deepEqual(tier.output.allowedSchemes, ['visa', 'mastercard']);
        assert.equal(tier.output.onSaleStart, '2026-01-01T00:00:00.000Z');
        assert.equal(tier.output.availableCount, 120);

        const pools = await call('list_pools', { merchantId: m.shopId });
        assert.ok(pools.ok);
        assert.equal(pools.output.pools.length, 1);
        const [p] = pools.output.pools;
        assert.deepEqual(
          {
            merchantId: p.merchantId,
            eventId: p.eventId,
            title: p.title,
            capacity: p.capacity,
            availableCount: p.availableCount,
          },
          { merchantId: m.shopId, eventId: event.output.id, title: 'Stalls', capacity: 120, availableCount: 120 },
        );
        assert.match(p.id, /^pool_/);
        assert.equal(typeof p.authority, 'string');
        assert.ok(!Number.isNaN(Date.parse(p.createdAt)));

        const read = await call('get_event', { id: event.output.id });
        assert.ok(read.ok);
        assert.equal(read.output.tiers.length, 1);
        assert.equal(read.output.tiers[0].id, tier.output.id);
      } finally {
        await done();
      }
    });

    test(`${verifies('SPEC-4.2-tier-unknown-field', 'CONTRACT-unknown-field')}an unknown field is refused with unknown_field naming it, and nothing is written`, async () => {
      const m = await h.merchant();
      const { call, done } = await surface.connect(h, m.apiKey);
      try {
        const event = await call('create_event', {
          merchantId: m.shopId,
          title: 'E',
          startsAt: '2027-01-01T20:00:00Z',
        });
        const pool = await call('create_pool', { merchantId: m.shopId, capacity: 10 });
        assert.ok(event.ok && pool.ok);
        const r = await call('create_tier', {
          eventId: event.output.id,
          poolId: pool.output.id,
          name: 'GA',
          priceMinor: 100,
          colour: 'red',
        });
        assert.equal(r.ok, false);
        assert.equal(!r.ok && r.code, 'unknown_field');
        assert.match(!r.ok ? r.message : '', /colour/);
        const read = await call('get_event', { id: event.output.id });
        assert.ok(read.ok);
        assert.equal(read.output.tiers.length, 0);
      } finally {
        await done();
      }
    });

    test(`${verifies('SPEC-5.3-scopes', 'SPEC-5.3-attest-only-key')}a key without the required scope is refused with insufficient_scope`, async () => {
      const m = await h.merchant(['merchant:read']);
      const { call, done } = await surface.connect(h, m.apiKey);
      try {
        const r = await call('create_pool', { merchantId: m.shopId, capacity: 5 });
        assert.equal(!r.ok && r.code, 'insufficient_scope');
        const attestOnly = await h.merchant(['mandates:attest']);
        const c2 = await surface.connect(h, attestOnly.apiKey);
        const list = await c2.call('list_pools', { merchantId: attestOnly.shopId });
        assert.equal(!list.ok && list.code, 'insufficient_scope');
        await c2.done();
      } finally {
        await done();
      }
    });

    test(`${verifies('CONTRACT-other-org-404')}another organization’s shop answers not_found, never forbidden`, async () => {
      const mine = await h.merchant();
      const theirs = await h.merchant();
      const { call, done } = await surface.connect(h, mine.apiKey);
      try {
        for (const [tool, input] of [
          ['list_pools', { merchantId: theirs.shopId }],
          ['get_shop', { id: theirs.shopId }],
          ['create_pool', { merchantId: theirs.shopId, capacity: 1 }],
        ] as const) {
          const r = await call(tool, input);
          assert.equal(!r.ok && r.code, 'not_found', `${tool}: ${JSON.stringify(r)}`);
        }
        const missing = await call('list_pools', { merchantId: 'shop_doesnotexist00000' });
        assert.equal(!missing.ok && missing.code, 'not_found');
      } finally {
        await done();
      }
    });

    test(`${verifies('SPEC-5.1-bearer-default')}without a credential a protected tool answers unauthenticated`, async () => {
      const m = await h.merchant();
      // `/mcp` over HTTP refuses the request itself with 401 before any tool runs (test/oauth/oauth-server.test.ts).
      if (!surface.anonymous) return;
      const { call, done } = await surface.connect(h, undefined);
      try {
        const r = await call('list_pools', { merchantId: m.shopId });
        assert.equal(!r.ok && r.code, 'unauthenticated');
      } finally {
        await done();
      }
    });
  });
}
