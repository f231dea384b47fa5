/**
 * list_orders per principal: the merchant by shop, event, state and time with cursor pages; a buyer across shops; an
 * agent its own.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { restClient } from '../support/rest.ts';
import { buy, buyerWithAgent, key, merchantShop, must, signIn, startWorld, type World } from '../support/buyers.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

const ids = (page: any) => page.orders.map((o: any) => o.id);

test('a merchant lists its orders by shop, event, state and time, newest first, in cursor pages', async () => {
  const m = await merchantShop(w.h);
  const startsAt = new Date(w.h.clock.now().getTime() + 40 * 86_400_000).toISOString();
  const ev2 = must(
    await m.api.post('/v1/integration/events', { merchantId: m.shopId, title: 'Second', startsAt }),
    201,
  );
  const pool2 = must(
    await m.api.post('/v1/integration/pools', { merchantId: m.shopId, eventId: ev2.id, capacity: 10 }),
    201,
  );
  const tier2 = must(
    await m.api.post('/v1/integration/tiers', { eventId: ev2.id, poolId: pool2.id, name: 'Seat', priceMinor: 1000 }),
    201,
  );
  const made: string[] = [];
  const t0 = w.h.clock.now();
  for (let i = 0; i < 5; i++) {
    w.h.clock.advance(60_000);
    made.push(
      must(await buy(m.api, i % 2 ? tier2.id : m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200).order.id,
    );
  }
  const all: string[] = [];
  let cursor: string | undefined;
  do {
    const page = must(
      await m.api.get(`/v1/ticketing/orders?merchantId=${m.shopId}&limit=2${cursor ? `&cursor=${cursor}` : ''}`),
      200,
    );
    assert.ok(page.orders.length <= 2);
    all.push(...ids(page));
    cursor = page.nextCursor;
  } while (cursor);
  assert.deepEqual(all, [...made].reverse());
  assert.deepEqual(ids(must(await m.api.get(`/v1/ticketing/orders?eventId=${ev2.id}`), 200)), [made[3], made[1]]);
  must(await m.api.post(`/v1/ticketing/orders/${made[0]}/refunds`, { reason: 'x', returnToPool: true }, key()), 200);
  assert.deepEqual(ids(must(await m.api.get('/v1/ticketing/orders?state=refunded'), 200)), [made[0]]);
  const from = new Date(t0.getTime() + 2 * 60_000).toISOString();
  const before = new Date(t0.getTime() + 4 * 60_000).toISOString();
  assert.deepEqual(
    ids(must(await m.api.get(`/v1/ticketing/orders?createdFrom=${from}&createdBefore=${before}`), 200)),
    [made[2], made[1]],
  );
  const bad = await m.api.get('/v1/ticketing/orders?createdFrom=yesterday');
  assert.equal(bad.body.code, 'invalid_input');
  const unknown = await m.api.get('/v1/ticketing/orders?shop=1');
  assert.equal(unknown.body.code, 'unknown_field');
  const other = await merchantShop(w.h);
  assert.equal((await other.api.get(`/v1/ticketing/orders?merchantId=${m.shopId}`)).status, 404);
  assert.deepEqual(ids(must(await other.api.get('/v1/ticketing/orders'), 200)), []);
});

test('a buyer lists its own orders across shops; an agent only the ones it made', async () => {
  const a = await merchantShop(w.h);
  const b = await merchantShop(w.h, { discoverable: true });
  const s = await buyerWithAgent(w, a);
  const byAgent = must(await buy(restClient(w.h.url, s.agentToken), a.tierId), 200).order.id;
  // The same buyer, signed in fully (no shop), buys in shop b with its own card.
  const full = await signIn(w, s.email);
  w.h.clock.advance(1000);
  const mine = must(await buy(restClient(w.h.url, full), b.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200).order
    .id;
  w.h.clock.advance(1000);
  const merchantOwn = must(await buy(a.api, a.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200).order.id;
  assert.deepEqual(ids(must(await restClient(w.h.url, full).get('/v1/ticketing/orders'), 200)), [mine, byAgent]);
  assert.deepEqual(ids(must(await restClient(w.h.url, s.agentToken).get('/v1/ticketing/orders'), 200)), [byAgent]);
  // Any full session of the buyer sees them all, whichever shop it signed in at.
  assert.deepEqual(ids(must(await restClient(w.h.url, s.session).get('/v1/ticketing/orders'), 200)), [mine, byAgent]);
  assert.deepEqual(ids(must(await a.api.get('/v1/ticketing/orders'), 200)), [merchantOwn, byAgent]);
  // Another buyer's order is not there, and reading it answers 404.
  assert.equal((await restClient(w.h.url, s.agentToken).get(`/v1/ticketing/orders/${mine}`)).status, 404);
  // A buyer or agent cannot refund.
  const refused = await restClient(w.h.url, full).post(
    `/v1/ticketing/orders/${mine}/refunds`,
    { reason: 'x', returnToPool: true },
    key(),
  );
  assert.equal(refused.status, 403);
});
