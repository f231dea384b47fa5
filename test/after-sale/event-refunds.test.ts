/**
 * Refunding every order of a cancelled event as a background job: progress is reported, a refused refund is
 * counted as failed, and a job killed halfway (a real server process, SIGKILL) and restarted refunds every
 * order exactly once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { EVENT_REFUND_LEASE_MS } from '../../src/domain/purchase/event-refunds.ts';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { startServerProcess } from '../support/server-process.ts';
import { SURFACES } from '../support/surfaces.ts';
import {
  confirmWith,
  count,
  key,
  must,
  reserveOne,
  shopWithTier,
  startSpineHarness,
  type Shop,
} from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

async function paidOrder(s: Shop, quantity: number, paymentMethod = 'pm_sandbox_visa') {
  const r = await reserveOne(s.api, s.tierId, quantity);
  return must(await confirmWith(s.api, r.reservation.id, paymentMethod), 200).order;
}

/** Runs the job by hand until nothing is pending (bounded). */
async function drain(eventId: string) {
  for (let i = 0; i < 200; i++) {
    await h.app.sweeper.runEventRefunds();
    const [row] = await h.db.execute<{ n: number }>(
      `select count(*)::int as n from event_refund_items where event_id = ? and state = 'pending'`,
      [eventId],
    );
    if (row!.n === 0) return;
  }
  assert.fail('the job did not finish');
}

test('a cancelled event’s orders are refunded by the job, with progress over every surface', async () => {
  const s = await shopWithTier(h, { capacity: 30, priceMinor: 1000 });
  const a = await paidOrder(s, 2);
  const b = await paidOrder(s, 1, 'pm_sandbox_refund_fails');
  const c = await paidOrder(s, 3);
  must(await s.api.post(`/v1/ticketing/orders/${c.id}/refunds`, { reason: 'earlier', returnToPool: true }, key()), 200);
  const started = await s.api.post(`/v1/ticketing/events/${s.eventId}/refunds`, { reason: 'Event cancelled' });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  assert.deepEqual(
    [started.body.state, started.body.total, started.body.pending],
    ['running', 2, 2],
    'c was already refunded: not part of it',
  );
  const again = must(await s.api.post(`/v1/ticketing/events/${s.eventId}/refunds`, { reason: 'Other reason' }), 202);
  assert.equal(again.reason, 'Event cancelled', 'starting again returns the same job');
  await drain(s.eventId);
  for (const surface of SURFACES) {
    const conn = await surface.connect(h, s.apiKey);
    try {
      const p = await conn.call('get_event_refunds', { id: s.eventId });
      assert.ok(p.ok, JSON.stringify(p));
      assert.deepEqual([p.output.state, p.output.refunded, p.output.failed, p.output.pending], ['done', 1, 1, 0]);
    } finally {
      await conn.done();
    }
  }
  const readA = must(await s.api.get(`/v1/ticketing/orders/${a.id}`), 200);
  assert.deepEqual([readA.state, readA.refundedMinor, readA.refunds[0].reason], ['refunded', 2000, 'Event cancelled']);
  const readB = must(await s.api.get(`/v1/ticketing/orders/${b.id}`), 200);
  assert.equal(readB.state, 'completed', 'a refused refund leaves the order paid');
  // Kept out of sale (the default): a's places stay taken; c's earlier refund returned its 3.
  assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 30, available: 27, held: 0, sold: 3 });
  const other = await shopWithTier(h);
  assert.equal((await other.api.get(`/v1/ticketing/events/${s.eventId}/refunds`)).status, 404);
});

test('a job killed halfway and restarted refunds every order exactly once', async () => {
  const s = await shopWithTier(h, { capacity: 60, priceMinor: 700, feePerTicketMinor: 30 });
  const orders = [];
  for (let i = 0; i < 30; i++) orders.push(await paidOrder(s, 1 + (i % 2)));
  // A separate server process on the same database runs the job in its sweeper loop…
  const server = await startServerProcess(
    {
      DATABASE_URL: h.dbUrl,
      SWEEP_INTERVAL_MS: '100',
      SANDBOX_DISPATCH_MS: '0',
      WEBHOOK_DISPATCH_MS: '0',
      RATE_LIMIT_PER_MINUTE: '100000',
    },
    240_000,
  );
  let pendingAtKill = 0;
  try {
    must(
      await restClient(server.url, s.apiKey).post(`/v1/ticketing/events/${s.eventId}/refunds`, { reason: 'Cancelled' }),
      202,
    );
    // …and is killed (SIGKILL: no shutdown) as soon as it has refunded some orders.
    for (let i = 0; i < 6000; i++) {
      const done = await count(h.db, `from event_refund_items where event_id = ? and state <> 'pending'`, [s.eventId]);
      if (done > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    server.child.kill('SIGKILL');
    await new Promise((r) => server.child.once('exit', r));
    pendingAtKill = await count(h.db, `from event_refund_items where event_id = ? and state = 'pending'`, [s.eventId]);
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
  }
  assert.ok(pendingAtKill > 0, 'the job was killed before it finished');
  // Restarted here (another process, same database): once the dead runner's leases run out (they were taken on the
  // dead process's own clock), the job completes.
  const [lease] = await h.db.execute<{ until: Date | null }>(
    'select max(lease_until) as until from event_refund_items where event_id = ?',
    [s.eventId],
  );
  const leaseEnd = lease?.until ? new Date(lease.until).getTime() : 0;
  h.clock.advance(Math.max(0, leaseEnd - h.clock.now().getTime()) + 1000);
  assert.ok(EVENT_REFUND_LEASE_MS > 0);
  await drain(s.eventId);
  const progress = must(await s.api.get(`/v1/ticketing/events/${s.eventId}/refunds`), 200);
  assert.deepEqual([progress.state, progress.total, progress.refunded, progress.failed], ['done', 30, 30, 0]);
  assert.equal(
    await count(
      h.db,
      'from (select order_id from refunds where order_id in (select id from orders where event_id = ?) group by order_id having count(*) > 1) d',
      [s.eventId],
    ),
    0,
  );
  const [ledger] = await h.db.execute<{ charges: number; refunds: number; over: number }>(
    `select count(distinct c.id)::int as charges, count(r.id)::int as refunds,
            count(*) filter (where r.amount_minor <> c.amount_minor)::int as over
       from sandbox_charges c join payments p on p.id = c.payment_reference join orders o on o.payment_id = p.id
       left join sandbox_refunds r on r.charge_id = c.id and r.outcome = 'succeeded'
      where o.event_id = ?`,
    [s.eventId],
  );
  assert.deepEqual(ledger, { charges: 30, refunds: 30, over: 0 }, 'the provider refunded each charge once, in full');
  for (const o of orders) {
    const read = must(await s.api.get(`/v1/ticketing/orders/${o.id}`), 200);
    assert.deepEqual([read.state, read.refundedMinor, read.refunds.length], ['refunded', o.totalMinor, 1]);
  }
  await assertInvariant(h.db, s.poolId);
});

test("issue #36: a refund the provider settles later shows in the job's progress as soon as it settles", async () => {
  const s = await shopWithTier(h, { capacity: 10, priceMinor: 1000 });
  await paidOrder(s, 1, 'pm_sandbox_refund_async');
  must(await s.api.post(`/v1/ticketing/events/${s.eventId}/refunds`, { reason: 'Event cancelled' }), 202);
  await h.app.sweeper.runEventRefunds(); // asks the provider: the refund is pending there
  const asked = must(await s.api.get(`/v1/ticketing/events/${s.eventId}/refunds`), 200);
  assert.deepEqual([asked.state, asked.pending, asked.refunded], ['running', 1, 0]);
  h.clock.advance(3000); // the sandbox settles the refund and sends its signed event; the item's lease has not ended
  assert.ok((await h.app.services.payments.settleDue()).delivered >= 1);
  const settled = must(await s.api.get(`/v1/ticketing/events/${s.eventId}/refunds`), 200);
  assert.deepEqual([settled.state, settled.pending, settled.refunded], ['done', 0, 1]);
  assert.equal(settled.finishedAt, h.clock.now().toISOString());
});
