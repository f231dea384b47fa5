/**
 * Catalog changes (issue #12 item 4): events changed and cancelled, tiers changed (price for new quotes only) and
 * retired, pool capacity changed never below held + sold; each emits its webhook event and keeps the invariant,
 * also under concurrent reserves.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { SURFACES } from '../support/surfaces.ts';
import { key, must, reserveOne, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';
import { verifies } from '../support/requirements.ts';

/** Moves another organization's key into the shop's, without its maker (no member there: such a key would be 401). */
const MOVE_KEY = 'update api_keys set organization_id = ?, created_by_user_id = null where organization_id = ?';

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

describe('events', () => {
  test('title, venue and times change; the event must still end after it starts; event.updated is emitted', async () => {
    const s = await shopWithTier(h);
    const startsAt = new Date(h.clock.now().getTime() + 40 * 86_400_000).toISOString();
    const endsAt = new Date(h.clock.now().getTime() + 40 * 86_400_000 + 7_200_000).toISOString();
    const changed = must(
      await patch(s, `/v1/integration/events/${s.eventId}`, {
        title: 'Concert (moved)',
        venue: 'Big Hall',
        startsAt,
        endsAt,
      }),
      200,
    );
    assert.deepEqual(
      [changed.title, changed.venue, changed.startsAt, changed.endsAt, changed.cancelledAt],
      ['Concert (moved)', 'Big Hall', startsAt, endsAt, null],
    );
    const bad = await patch(s, `/v1/integration/events/${s.eventId}`, { endsAt: startsAt });
    assert.deepEqual([bad.status, bad.body.code, bad.body.details.field], [400, 'invalid_input', 'endsAt']);
    const cleared = must(await patch(s, `/v1/integration/events/${s.eventId}`, { venue: null, endsAt: null }), 200);
    assert.deepEqual([cleared.venue, cleared.endsAt, cleared.title], [null, null, 'Concert (moved)']);
    const unknown = await patch(s, `/v1/integration/events/${s.eventId}`, { shopId: 'x' });
    assert.deepEqual([unknown.status, unknown.body.code], [400, 'unknown_field']);
    const emitted = (await events(s.shopId)).filter((e) => e.type === 'event.updated');
    assert.equal(emitted.length, 2);
    assert.ok(emitted.every((e) => e.data.event.title === 'Concert (moved)'));
    assert.deepEqual(emitted.map((e) => (e.data.changed as string[]).sort().join()).sort(), [
      'endsAt,startsAt,title,venue',
      'endsAt,venue',
    ]);
  });

  test('a cancelled event stops selling, leaves the window, and cannot be changed or cancelled again', async () => {
    const s = await shopWithTier(h);
    must(await patch(s, `/v1/integration/shops/${s.shopId}`, { discoverable: true }), 200);
    const held = await reserveOne(s.api, s.tierId, 2);
    const quote = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
    const cancelled = must(
      await s.api.post(`/v1/integration/events/${s.eventId}/cancel`, { reason: 'Artist unwell' }),
      200,
    );
    assert.ok(cancelled.cancelledAt);
    const q = await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 });
    assert.deepEqual([q.status, q.body.code], [409, 'event_cancelled']);
    const r = await s.api.post('/v1/ticketing/reservations', { quoteId: quote.quoteId }, key());
    assert.deepEqual(
      [r.status, r.body.code],
      [409, 'event_cancelled'],
      'a quote made before the cancellation cannot be reserved',
    );
    const again = await s.api.post(`/v1/integration/events/${s.eventId}/cancel`, {});
    assert.deepEqual([again.status, again.body.code], [409, 'event_cancelled']);
    assert.equal((await patch(s, `/v1/integration/events/${s.eventId}`, { title: 'x' })).body.code, 'event_cancelled');
    const window = must(await restClient(h.url).get(`/v1/discovery/shops/${s.shopId}`), 200);
    assert.deepEqual(window.events, []);
    must(await s.api.post(`/v1/ticketing/reservations/${held.reservation.id}/release`, {}), 200);
    await assertInvariant(h.db, s.poolId);
    const [cancelEvent] = (await events(s.shopId)).filter((e) => e.type === 'event.cancelled');
    assert.deepEqual([cancelEvent?.data.reason, cancelEvent?.data.event.id], ['Artist unwell', s.eventId]);
  });

  test('an event takes an IANA time zone (UTC by default), shown in every read; an unknown zone is refused', async () => {
    const s = await shopWithTier(h);
    must(await patch(s, `/v1/integration/shops/${s.shopId}`, { discoverable: true }), 200);
    const startsAt = new Date(h.clock.now().getTime() + 30 * 86_400_000).toISOString();
    const plain = must(await s.api.post('/v1/integration/events', { merchantId: s.shopId, title: 'A', startsAt }), 201);
    assert.equal(plain.timeZone, 'UTC', 'an event created without a zone is in UTC');
    const body = { merchantId: s.shopId, title: 'B', startsAt, timeZone: 'europe/budapest' };
    const zoned = must(await s.api.post('/v1/integration/events', body), 201);
    assert.equal(zoned.timeZone, 'Europe/Budapest', 'stored in its canonical spelling');
    for (const timeZone of ['Mars/Olympus', 'CET', '+01:00']) {
      const bad = await s.api.post('/v1/integration/events', { ...body, timeZone });
      assert.deepEqual([bad.status, bad.body.code, bad.body.details?.field], [400, 'unknown_time_zone', 'timeZone']);
    }
    const badPatch = await patch(s, `/v1/integration/events/${s.eventId}`, { timeZone: 'Nowhere/Town' });
    assert.deepEqual([badPatch.status, badPatch.body.code], [400, 'unknown_time_zone']);
    const moved = must(await patch(s, `/v1/integration/events/${s.eventId}`, { timeZone: 'America/New_York' }), 200);
    assert.deepEqual([moved.timeZone, moved.startsAt], ['America/New_York', startsAt]);
    const window = must(await restClient(h.url).get(`/v1/discovery/shops/${s.shopId}`), 200);
    assert.equal(window.events.find((e: { id: string }) => e.id === s.eventId)?.timeZone, 'America/New_York');
  });
});

describe('tiers', () => {
  test('a new price applies to new quotes only; restrictions change at once; tier.updated is emitted', async () => {
    const s = await shopWithTier(h, { priceMinor: 5000 });
    const oldQuote = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 2 }), 201);
    const repriced = must(
      await patch(s, `/v1/integration/tiers/${s.tierId}`, { name: 'Early bird', priceMinor: 6500 }),
      200,
    );
    assert.deepEqual([repriced.name, repriced.priceMinor], ['Early bird', 6500]);
    const held = must(await s.api.post('/v1/ticketing/reservations', { quoteId: oldQuote.quoteId }, key()), 201);
    assert.equal(held.reservation.totalMinor, 10_000, 'the quote keeps the price it was given');
    const changed = must(
      await patch(s, `/v1/integration/tiers/${s.tierId}`, { maxQtyPerPurchase: 1, allowedSchemes: ['visa'] }),
      200,
    );
    assert.deepEqual([changed.name, changed.maxQtyPerPurchase, changed.allowedSchemes], ['Early bird', 1, ['visa']]);
    const over = await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 2, scheme: 'visa' });
    assert.equal(over.body.code, 'quantity_over_limit');
    const fresh = must(
      await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1, scheme: 'visa' }),
      201,
    );
    assert.equal(fresh.totalMinor, 6500);
    const bad = await patch(s, `/v1/integration/tiers/${s.tierId}`, {
      onSaleStart: '2031-01-02T00:00:00Z',
      onSaleEnd: '2031-01-01T00:00:00Z',
    });
    assert.deepEqual([bad.status, bad.body.code, bad.body.details?.field], [400, 'invalid_input', 'onSaleEnd']);
    must(await patch(s, `/v1/integration/tiers/${s.tierId}`, { onSaleEnd: '2031-01-01T00:00:00Z' }), 200);
    const late = await patch(s, `/v1/integration/tiers/${s.tierId}`, { onSaleStart: '2031-02-01T00:00:00Z' });
    assert.deepEqual(
      [late.status, late.body.code, late.body.details?.field],
      [400, 'invalid_input', 'onSaleStart'],
      'checked against the stored end, naming the changed field',
    );
    must(await patch(s, `/v1/integration/tiers/${s.tierId}`, { onSaleEnd: null }), 200);
    const created = await s.api.post('/v1/integration/tiers', {
      eventId: s.eventId,
      poolId: s.poolId,
      name: 'Inverted',
      priceMinor: 100,
      onSaleStart: '2031-01-02T00:00:00Z',
      onSaleEnd: '2031-01-01T00:00:00Z',
    });
    assert.deepEqual(
      [created.status, created.body.code, created.body.details?.field],
      [400, 'invalid_input', 'onSaleEnd'],
      'create_tier applies the same window check',
    );
    const currency = await patch(s, `/v1/integration/tiers/${s.tierId}`, { currency: 'USD' });
    assert.deepEqual([currency.status, currency.body.code], [400, 'unknown_field']);
    const updated = (await events(s.shopId)).filter((e) => e.type === 'tier.updated');
    assert.equal(updated.length, 4);
    assert.ok(updated.every((e) => e.data.tier.priceMinor === 6500));
    await assertInvariant(h.db, s.poolId);
  });

  test('a retired tier is no longer sold or shown; its pool keeps serving other tiers', async () => {
    const s = await shopWithTier(h);
    must(await patch(s, `/v1/integration/shops/${s.shopId}`, { discoverable: true }), 200);
    const other = must(
      await s.api.post('/v1/integration/tiers', {
        eventId: s.eventId,
        poolId: s.poolId,
        name: 'Other',
        priceMinor: 100,
      }),
      201,
    );
    const quote = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
    const retired = must(await s.api.post(`/v1/integration/tiers/${s.tierId}/retire`, {}), 200);
    assert.ok(retired.retiredAt);
    assert.equal(
      (await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 })).body.code,
      'tier_retired',
    );
    assert.equal(
      (await s.api.post('/v1/ticketing/reservations', { quoteId: quote.quoteId }, key())).body.code,
      'tier_retired',
    );
    assert.equal((await patch(s, `/v1/integration/tiers/${s.tierId}`, { name: 'x' })).body.code, 'tier_retired');
    assert.equal((await s.api.post(`/v1/integration/tiers/${s.tierId}/retire`, {})).body.code, 'tier_retired');
    await reserveOne(s.api, other.id, 1);
    const window = must(await restClient(h.url).get(`/v1/discovery/shops/${s.shopId}`), 200);
    assert.deepEqual(
      window.events[0].tiers.map((t: any) => t.id),
      [other.id],
    );
    assert.ok((await events(s.shopId)).some((e) => e.type === 'tier.retired' && e.data.tier.id === s.tierId));
    await assertInvariant(h.db, s.poolId);
  });
});

describe('who may change the catalog', () => {
  test(`${verifies('SPEC-5.4-integrator-limits', 'SPEC-5.3-scopes')}read-only keys, the integrator and other organizations are refused`, async () => {
    const s = await shopWithTier(h);
    const m = await h.merchant(['merchant:read']);
    await h.db.execute(MOVE_KEY, [s.organizationId, m.organizationId]);
    const readOnly = restClient(h.url, m.apiKey);
    const iid = `usr_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    await h.db.execute('insert into users (id, email, name, is_staff, created_at) values (?, ?, null, false, now())', [
      iid,
      `${iid}@example.test`,
    ]);
    await h.db.execute(
      `insert into memberships (user_id, organization_id, role, invited_by, created_at) values (?, ?, 'integrator', null, now())`,
      [iid, s.organizationId],
    );
    const integrator = restClient(
      h.url,
      await h.app.authenticator.sign({ typ: 'console', sub: iid, org: s.organizationId, role: 'integrator' }, 3600),
    );
    const stranger = await shopWithTier(h);
    const calls: [string, string, unknown][] = [
      ['PATCH', `/v1/integration/events/${s.eventId}`, { title: 'x' }],
      ['POST', `/v1/integration/events/${s.eventId}/cancel`, {}],
      ['PATCH', `/v1/integration/tiers/${s.tierId}`, { priceMinor: 1 }],
      ['POST', `/v1/integration/tiers/${s.tierId}/retire`, {}],
      ['PATCH', `/v1/integration/pools/${s.poolId}`, { capacity: 11 }],
    ];
    for (const [method, path, body] of calls) {
      const a = await readOnly.call(method, path, body);
      assert.deepEqual([a.status, a.body.code], [403, 'insufficient_scope'], path);
      const b = await integrator.call(method, path, body);
      assert.deepEqual([b.status, b.body.code], [403, 'forbidden'], path);
      const c = await stranger.api.call(method, path, body);
      assert.deepEqual([c.status, c.body.code], [404, 'not_found'], path);
    }
    assert.equal(
      must(await s.api.get(`/v1/catalog/events/${s.eventId}`), 200).event.cancelledAt,
      null,
      'nothing changed',
    );
  });

  for (const surface of SURFACES.filter((x) => x.name !== 'rest')) {
    test(`changes over ${surface.name}`, async () => {
      const s = await shopWithTier(h, { capacity: 10 });
      const { call, done } = await surface.connect(h, s.apiKey);
      try {
        const pool = await call('update_pool', { id: s.poolId, capacity: 12 });
        assert.ok(pool.ok, JSON.stringify(pool));
        assert.equal(pool.output.availableCount, 12);
        const tier = await call('update_tier', { id: s.tierId, priceMinor: 1234 });
        assert.ok(tier.ok && tier.output.priceMinor === 1234);
        const refused = await call('update_pool', { id: s.poolId, capacity: -5 });
        assert.equal(!refused.ok && refused.code, 'invalid_input');
        const cancelled = await call('cancel_event', { id: s.eventId });
        assert.ok(cancelled.ok && cancelled.output.cancelledAt);
      } finally {
        await done();
      }
    });
  }
});
