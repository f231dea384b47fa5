import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { HoldSweeper } from '../../src/domain/purchase/sweeper.ts';
import { Database } from '../../src/storage/database.ts';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { confirmWith, count, must, reserveOne, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const sweep = (limit = 1000) => h.app.sweeper.sweepExpiredHolds(h.clock.now(), limit);

test('an expired hold is refused at confirm and released by the sweeper exactly once', async () => {
  const s = await shopWithTier(h, { capacity: 3, holdMinutes: 5 });
  const { reservation } = await reserveOne(s.api, s.tierId, 2);
  await sweep();
  assert.equal(must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200).reservation.state, 'held');
  h.clock.advance(5 * 60_000);
  const late = await confirmWith(s.api, reservation.id, 'pm_sandbox_visa');
  assert.equal(late.status, 410);
  assert.equal(late.body.code, 'reservation_expired');
  await assertInvariant(h.db, s.poolId);
  const first = await sweep();
  assert.ok(first.released.includes(reservation.id));
  const second = await sweep();
  assert.ok(!second.released.includes(reservation.id));
  const view = must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.equal(view.reservation.state, 'released');
  assert.equal(view.reservation.releaseReason, 'expired');
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [3, 0]);
  const n = await count(
    h.db,
    `from webhook_events where type = 'reservation.expired' and data->'reservation'->>'id' = ?`,
    [reservation.id],
  );
  assert.equal(n, 1);
  assert.equal((await confirmWith(s.api, reservation.id, 'pm_sandbox_visa')).body.code, 'reservation_expired');
  assert.equal((await s.api.post(`/v1/ticketing/reservations/${reservation.id}/release`, {})).status, 200);
  await assertInvariant(h.db, s.poolId);
});

test('completed and still-valid reservations are left alone', async () => {
  const s = await shopWithTier(h, { capacity: 3, holdMinutes: 10 });
  const done = await reserveOne(s.api, s.tierId);
  must(await confirmWith(s.api, done.reservation.id, 'pm_sandbox_visa'), 200);
  h.clock.advance(9 * 60_000);
  const young = await reserveOne(s.api, s.tierId);
  h.clock.advance(2 * 60_000);
  const swept = await sweep();
  assert.ok(!swept.released.includes(done.reservation.id));
  assert.ok(!swept.released.includes(young.reservation.id));
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [1, 1, 1]);
});

test('two sweepers on one database (as two processes would) release each expired hold exactly once', async () => {
  const s = await shopWithTier(h, { capacity: 60, holdMinutes: 1 });
  const ids = new Set<string>();
  for (let i = 0; i < 40; i++) ids.add((await reserveOne(s.api, s.tierId)).reservation.id);
  await assertInvariant(h.db, s.poolId);
  h.clock.advance(60_000);
  const otherDb = await Database.open(h.dbUrl);
  try {
    const log = pino({ level: 'silent' });
    const other = new HoldSweeper({ ...h.app.services, db: otherDb, clock: h.clock, log });
    const now = h.clock.now();
    const reports = await Promise.all([
      ...Array.from({ length: 4 }, () => h.app.sweeper.sweepExpiredHolds(now, 7)),
      ...Array.from({ length: 4 }, () => other.sweepExpiredHolds(now, 7)),
      new HoldSweeper({ ...h.app.services, db: otherDb, clock: h.clock, log }).sweepExpiredHolds(now, 7),
    ]);
    const released = reports.flatMap((r) => r.released).filter((id) => ids.has(id));
    assert.equal(new Set(released).size, released.length, 'no reservation released twice');
    while ((await sweep()).released.length) {
      /* drain what the concurrent passes left */
    }
  } finally {
    await otherDb.close();
  }
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [60, 0]);
  const n = await count(h.db, `from webhook_events where type = 'reservation.expired' and shop_id = ?`, [s.shopId]);
  assert.equal(n, 40);
});

test('one pass writes each released hold its own event, equal to the purchase as read back (held, confirming, declined before)', async () => {
  const s = await shopWithTier(h, { capacity: 10, holdMinutes: 5 });
  const held = await reserveOne(s.api, s.tierId, 2);
  const confirming = await reserveOne(s.api, s.tierId, 1);
  assert.equal((await confirmWith(s.api, confirming.reservation.id, 'pm_sandbox_async_success')).status, 202);
  const declined = await reserveOne(s.api, s.tierId, 3);
  assert.equal((await confirmWith(s.api, declined.reservation.id, 'pm_sandbox_declined')).status, 402);
  h.clock.advance(24 * 60 * 60_000);
  const ids = [held, confirming, declined].map((r) => r.reservation.id);
  const { released } = await sweep();
  for (const id of ids) assert.ok(released.includes(id), id);
  for (const id of ids) {
    const rows = await h.db.execute<{ data: unknown }>(
      `select data from webhook_events where type = 'reservation.expired' and data->'reservation'->>'id' = ?`,
      [id],
    );
    assert.equal(rows.length, 1, id);
    // The read adds guidance for a pending payment (pollUrl, next); the event carries the purchase itself.
    const { reservation, order, payment } = must(await s.api.get(`/v1/ticketing/reservations/${id}`), 200);
    assert.deepEqual(rows[0]?.data, JSON.parse(JSON.stringify({ reservation, order, payment })), id);
  }
  const withPayment = must(await s.api.get(`/v1/ticketing/reservations/${confirming.reservation.id}`), 200);
  assert.equal(withPayment.payment.state, 'pending');
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [10, 0]);
});
