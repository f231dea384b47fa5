/**
 * Discount code uses given back (issue #37 item 2, docs/discount-codes.md): two sweepers on two connections over holds
 * whose codes come in opposite orders finish without a deadlock and give each use back once; an event-wide refund
 * gives a use back when the code says so, as refund_order's full refund does.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { HoldSweeper } from '../../src/domain/purchase/sweeper.ts';
import { Database } from '../../src/storage/database.ts';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { confirmWith, key, must, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const newCode = async (s: Shop, fields: Record<string, unknown>) =>
  must<{ id: string }>(await s.api.post('/v1/integration/discount-codes', { merchantId: s.shopId, ...fields }), 201);

const usesOf = async (s: Shop, id: string) =>
  must<{ uses: number }>(await s.api.get(`/v1/integration/discount-codes/${id}`), 200).uses;

async function holdWith(s: Shop, code: string): Promise<string> {
  const q = must<{ quoteId: string }>(
    await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1, discountCode: code }),
    201,
  );
  return must<{ reservation: { id: string } }>(
    await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()),
    201,
  ).reservation.id;
}

test('two sweepers giving back uses of two codes in opposite orders finish without a deadlock, each use once', async () => {
  const s = await shopWithTier(h, { capacity: 40, holdMinutes: 1 });
  const x = await newCode(s, { code: 'XFIRST', kind: 'percent', percentOff: 10 });
  const y = await newCode(s, { code: 'YFIRST', kind: 'percent', percentOff: 20 });
  // Holds alternate X, Y, Y, X, ...: each sweeper's batch of two names both codes, in both orders.
  for (let i = 0; i < 16; i++) await holdWith(s, i % 4 === 0 || i % 4 === 3 ? 'XFIRST' : 'YFIRST');
  assert.deepEqual([await usesOf(s, x.id), await usesOf(s, y.id)], [8, 8]);
  h.clock.advance(60_000);
  const otherDb = await Database.open(h.dbUrl);
  try {
    const other = new HoldSweeper({ ...h.app.services, db: otherDb, clock: h.clock, log: pino({ level: 'silent' }) });
    const now = h.clock.now();
    const reports = await Promise.all(
      Array.from({ length: 4 }, () => [
        h.app.sweeper.sweepExpiredHolds(now, 2),
        other.sweepExpiredHolds(now, 2),
      ]).flat(),
    );
    const released = reports.flatMap((r) => r.released);
    assert.equal(new Set(released).size, released.length, 'no hold released twice');
    while ((await h.app.sweeper.sweepExpiredHolds(now, 1000)).released.length) {
      /* drain what the concurrent passes left */
    }
  } finally {
    await otherDb.close();
  }
  assert.deepEqual([await usesOf(s, x.id), await usesOf(s, y.id)], [0, 0]);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [40, 0]);
});

test('an event-wide refund gives a use back when the code says so, as refund_order does', async () => {
  const s = await shopWithTier(h, { capacity: 10 });
  const back = await newCode(s, { code: 'COMEBACK', kind: 'percent', percentOff: 10, refundReturnsUse: true });
  const kept = await newCode(s, { code: 'SPENT', kind: 'percent', percentOff: 10 });
  for (const code of ['COMEBACK', 'SPENT'])
    must(await confirmWith(s.api, await holdWith(s, code), 'pm_sandbox_visa'), 200);
  assert.deepEqual([await usesOf(s, back.id), await usesOf(s, kept.id)], [1, 1]);
  must(await s.api.post(`/v1/ticketing/events/${s.eventId}/refunds`, { reason: 'Event cancelled' }), 202);
  for (let i = 0; i < 10; i++) {
    await h.app.sweeper.runEventRefunds();
    if (must<{ pending: number }>(await s.api.get(`/v1/ticketing/events/${s.eventId}/refunds`), 200).pending === 0)
      break;
  }
  const done = must<{ refunded: number }>(await s.api.get(`/v1/ticketing/events/${s.eventId}/refunds`), 200);
  assert.equal(done.refunded, 2);
  assert.deepEqual([await usesOf(s, back.id), await usesOf(s, kept.id)], [0, 1]);
});
