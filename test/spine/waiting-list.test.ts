/**
 * Issue #37 (6), a waiting list: a sold-out tier's refusal says a list exists; places that come back (a released or
 * expired hold, a refund with returnToPool, a raised capacity) go to the first in line as a real hold, never to a
 * racing new buyer; an unanswered offer expires with its hold and passes on; the merchant lists, removes and turns off.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { HoldSweeper } from '../../src/domain/purchase/sweeper.ts';
import { Database } from '../../src/storage/database.ts';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { callTool, mcpInMemory } from '../support/mcp.ts';
import { restClient } from '../support/rest.ts';
import { confirmWith, key, must, reserveOne, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const sweep = () => h.app.sweeper.sweepExpiredHolds(h.clock.now(), 1000);

/** A bounded buyer session at the shop, as a REST client. */
async function buyer(s: Shop, email: string) {
  const session = must(await s.api.post('/v1/integration/buyer-sessions', { merchantId: s.shopId, email }), 201);
  return restClient(h.url, session.token);
}

const entry = async (s: Shop, id: string) => must(await s.api.get(`/v1/ticketing/waiting-list/${id}`), 200);

test('a place freed while a new buyer races for it goes to the first in line; the new buyer gets sold_out', async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const first = await reserveOne(s.api, s.tierId, 2);
  const racer = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  await reserveOne(s.api, s.tierId, 1);
  const refused = await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 'sold_out');
  assert.equal(refused.body.details.waitingList, true);

  const ada = await buyer(s, 'ada@example.com');
  const joined = must(await ada.post('/v1/ticketing/waiting-list', { tierId: s.tierId, quantity: 1 }), 200);
  assert.deepEqual([joined.state, joined.position], ['waiting', 1]);
  const again = must(await ada.post('/v1/ticketing/waiting-list', { tierId: s.tierId, quantity: 1 }), 200);
  assert.equal(again.id, joined.id, 'joining again is the same entry');
  // A merchant's integration joins for a person by e-mail, over MCP.
  const mcp = await mcpInMemory(h, s.apiKey);
  const bob = await callTool(mcp, 'join_waiting_list', { tierId: s.tierId, quantity: 1, email: 'Bob@Example.com' });
  assert.ok(bob.ok);
  assert.equal((bob.output as { position: number }).position, 2);
  await mcp.close();

  // The hold of 2 is released while a new buyer reserves with a quote it got before: the places go to the line.
  const [released, raced] = await Promise.all([
    s.api.post(`/v1/ticketing/reservations/${first.reservation.id}/release`, {}),
    s.api.post('/v1/ticketing/reservations', { quoteId: racer.quoteId }, key()),
  ]);
  must(released, 200);
  assert.equal(raced.status, 409);
  assert.equal(raced.body.code, 'sold_out');
  const offered = must(await ada.get(`/v1/ticketing/waiting-list/${joined.id}`), 200);
  assert.equal(offered.state, 'offered');
  assert.equal(offered.offer.totalMinor, 5000);
  const bobs = must(await s.api.get(`/v1/ticketing/waiting-list/${(bob.output as { id: string }).id}`), 200);
  assert.deepEqual([bobs.state, bobs.email], ['offered', 'bob@example.com']);
  let c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [0, 3]);

  // Ada pays for her offer with her own session; her entry reads purchased.
  must(await confirmWith(ada, offered.offer.reservationId, 'pm_sandbox_visa'), 200);
  assert.equal(must(await ada.get(`/v1/ticketing/waiting-list/${joined.id}`), 200).state, 'purchased');
  c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [0, 2, 1]);
});

test('an unanswered offer expires with its hold and passes to the next in line; leaving gives the places back', async () => {
  const s = await shopWithTier(h, { capacity: 1 });
  const hold = await reserveOne(s.api, s.tierId, 1);
  const settings = must(await s.api.put(`/v1/integration/tiers/${s.tierId}/waiting-list`, { offerMinutes: 5 }), 200);
  assert.deepEqual([settings.enabled, settings.offerMinutes], [true, 5]);
  const one = must(
    await s.api.post('/v1/ticketing/waiting-list', { tierId: s.tierId, quantity: 1, email: 'first@x.io' }),
    200,
  );
  const two = must(
    await s.api.post('/v1/ticketing/waiting-list', { tierId: s.tierId, quantity: 1, email: 'second@x.io' }),
    200,
  );
  must(await s.api.post(`/v1/ticketing/reservations/${hold.reservation.id}/release`, {}), 200);
  const offer = (await entry(s, one.id)).offer;
  assert.equal(Date.parse(offer.expiresAt) - h.clock.now().getTime(), 5 * 60_000);
  // The offer is mailed once, in the person's language, naming the reservation to confirm.
  assert.ok((await h.app.sweeper.mailWaitingListOffers()) >= 1);
  await h.app.sweeper.mailWaitingListOffers();
  const mails = await h.db.execute<{ subject: string; text_body: string }>(
    `select subject, text_body from mail_outbox where to_address = 'first@x.io'`,
  );
  assert.equal(mails.length, 1);
  assert.match(mails[0]!.subject, /Places held for you: Concert/);
  assert.ok(mails[0]!.text_body.includes(offer.reservationId));

  h.clock.advance(5 * 60_000);
  const swept = await sweep();
  assert.ok(swept.released.includes(offer.reservationId));
  assert.equal((await entry(s, one.id)).state, 'expired');
  const next = await entry(s, two.id);
  assert.equal(next.state, 'offered');
  await assertInvariant(h.db, s.poolId);

  const list = must(await s.api.get(`/v1/integration/waiting-list?tierId=${s.tierId}`), 200);
  assert.deepEqual(
    list.entries.map((e: { email: string; state: string }) => [e.email, e.state]),
    [
      ['first@x.io', 'expired'],
      ['second@x.io', 'offered'],
    ],
  );
  const left = must(await s.api.post(`/v1/ticketing/waiting-list/${two.id}/leave`, {}), 200);
  assert.equal(left.state, 'left');
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [1, 0]);
  // Places are free now: joining is refused, the caller buys instead.
  const free = await s.api.post('/v1/ticketing/waiting-list', { tierId: s.tierId, quantity: 1, email: 'c@x.io' });
  assert.equal(free.body.code, 'places_available');
});

test('a refund returning places and a raised capacity offer them first; the merchant removes and turns the list off', async () => {
  const s = await shopWithTier(h, { capacity: 1 });
  const sold = await reserveOne(s.api, s.tierId, 1);
  const order = must(await confirmWith(s.api, sold.reservation.id, 'pm_sandbox_visa'), 200).order;
  const one = must(
    await s.api.post('/v1/ticketing/waiting-list', { tierId: s.tierId, quantity: 1, email: 'a@x.io' }),
    200,
  );
  const two = must(
    await s.api.post('/v1/ticketing/waiting-list', { tierId: s.tierId, quantity: 1, email: 'b@x.io' }),
    200,
  );
  const three = must(
    await s.api.post('/v1/ticketing/waiting-list', { tierId: s.tierId, quantity: 1, email: 'c@x.io' }),
    200,
  );

  const pool = must(await s.api.patch(`/v1/integration/pools/${s.poolId}`, { capacity: 2 }), 200);
  assert.equal(pool.availableCount, 0, 'the raised place went to the first in line');
  assert.equal((await entry(s, one.id)).state, 'offered');
  must(await s.api.post(`/v1/ticketing/orders/${order.id}/refunds`, { reason: 'ill', returnToPool: true }, key()), 200);
  assert.equal((await entry(s, two.id)).state, 'offered');
  await assertInvariant(h.db, s.poolId);

  const removed = must(await s.api.delete(`/v1/integration/waiting-list/${two.id}`), 200);
  assert.equal(removed.state, 'removed');
  assert.equal((await entry(s, three.id)).state, 'offered', 'the removed entry’s offer passed on');
  must(await s.api.put(`/v1/integration/tiers/${s.tierId}/waiting-list`, { enabled: false }), 200);
  const closed = await s.api.post('/v1/ticketing/waiting-list', { tierId: s.tierId, quantity: 1, email: 'd@x.io' });
  assert.equal(closed.body.code, 'waiting_list_closed');
  const other = await shopWithTier(h, { capacity: 1 });
  assert.equal((await other.api.get(`/v1/ticketing/waiting-list/${one.id}`)).status, 404);
  await assertInvariant(h.db, s.poolId);
});

test('two processes sweeping at once offer each waiting entry exactly once (FOR UPDATE SKIP LOCKED)', async () => {
  const s = await shopWithTier(h, { capacity: 6, holdMinutes: 1 });
  for (let i = 0; i < 6; i++) await reserveOne(s.api, s.tierId, 1);
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) {
    const joined = await s.api.post('/v1/ticketing/waiting-list', {
      tierId: s.tierId,
      quantity: 1,
      email: `p${i}@x.io`,
    });
    ids.push(must(joined, 200).id);
  }
  h.clock.advance(60_000);
  const otherDb = await Database.open(h.dbUrl);
  try {
    const other = new HoldSweeper({ ...h.app.services, db: otherDb, clock: h.clock, log: pino({ level: 'silent' }) });
    const now = h.clock.now();
    await Promise.all([
      ...Array.from({ length: 3 }, () => h.app.sweeper.sweepExpiredHolds(now, 1)),
      ...Array.from({ length: 3 }, () => other.sweepExpiredHolds(now, 1)),
    ]);
    while ((await sweep()).released.length) {
      /* drain what the concurrent passes left */
    }
  } finally {
    await otherDb.close();
  }
  const states = await Promise.all(ids.map(async (id) => (await entry(s, id)).state));
  assert.deepEqual(states, Array(6).fill('offered'));
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [0, 6], 'six offers, one hold each: no entry offered twice');
});

test('without a tier or event, list_waiting_list gives every list of the caller’s organization and no other', async () => {
  const mine = await shopWithTier(h, { capacity: 1 });
  const theirs = await shopWithTier(h, { capacity: 1 });
  for (const s of [mine, theirs]) {
    await reserveOne(s.api, s.tierId, 1);
    must(
      await s.api.post('/v1/ticketing/waiting-list', { tierId: s.tierId, quantity: 1, email: 'x@example.com' }),
      200,
    );
  }
  const listed = must(await mine.api.get('/v1/integration/waiting-list'), 200);
  assert.deepEqual(
    listed.entries.map((e: { tierId: string }) => e.tierId),
    [mine.tierId],
  );
});
