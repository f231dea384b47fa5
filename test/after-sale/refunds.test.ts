/**
 * Orders and refunds over every surface: buy, list, refund part, read back, with the pool numbers right after each
 * step.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { SURFACES } from '../support/surfaces.ts';
import { confirmWith, count, key, must, reserveOne, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

/** A completed order of `quantity` tickets paid with `paymentMethod`; returns the order view. */
async function paidOrder(
  s: Awaited<ReturnType<typeof shopWithTier>>,
  quantity: number,
  paymentMethod = 'pm_sandbox_visa',
) {
  const r = await reserveOne(s.api, s.tierId, quantity);
  return must(await confirmWith(s.api, r.reservation.id, paymentMethod), 200).order;
}

for (const surface of SURFACES) {
  test(`buy, list, refund part of an order and read it back over ${surface.name}; the pool stays true`, async () => {
    const s = await shopWithTier(h, { capacity: 10, priceMinor: 5000, feePerTicketMinor: 150 });
    const conn = await surface.connect(h, s.apiKey);
    try {
      const { call } = conn;
      const q = await call('quote', { tierId: s.tierId, quantity: 3 });
      const r = await call('reserve', { quoteId: q.ok && q.output.quoteId }, { idempotencyKey: randomUUID() });
      assert.ok(r.ok, JSON.stringify(r));
      const c = await call(
        'confirm',
        { id: r.output.reservation.id, paymentMethod: 'pm_sandbox_visa' },
        { idempotencyKey: randomUUID() },
      );
      assert.ok(c.ok, JSON.stringify(c));
      const order = c.output.order;
      assert.equal(order.totalMinor, 15450);
      assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 10, available: 7, held: 0, sold: 3 });

      const listed = await call('list_orders', { merchantId: s.shopId });
      assert.ok(listed.ok, JSON.stringify(listed));
      assert.deepEqual(
        listed.output.orders.map((o: any) => o.id),
        [order.id],
      );
      assert.equal(listed.output.orders[0].payments[0].state, 'succeeded');

      if (surface.name === 'rest') {
        // REST requires the header; MCP and A2A take the key as an optional argument (a repeated refund of the same
        // tickets is refused as ticket_not_refundable, so money never moves twice without one).
        const noKey = await call('refund_order', {
          id: order.id,
          ticketIds: [order.tickets[0].id],
          reason: 'Cannot come',
          returnToPool: true,
        });
        assert.equal(!noKey.ok && noKey.code, 'missing_idempotency_key');
      }
      const part = await call(
        'refund_order',
        { id: order.id, ticketIds: [order.tickets[0].id], reason: 'Cannot come', returnToPool: true },
        { idempotencyKey: randomUUID() },
      );
      assert.ok(part.ok, JSON.stringify(part));
      assert.equal(part.output.refund.state, 'succeeded');
      assert.equal(part.output.refund.amountMinor, 5150);
      assert.equal(part.output.order.state, 'partially_refunded');
      assert.equal(part.output.order.refundedMinor, 5150);
      assert.deepEqual(
        part.output.order.tickets.map((t: any) => t.state),
        ['void', 'valid', 'valid'],
      );
      assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 10, available: 8, held: 0, sold: 2 });

      const read = await call('get_order', { id: order.id });
      assert.ok(read.ok);
      assert.deepEqual(read.output, part.output.order);
      assert.deepEqual(
        read.output.refunds.map((x: any) => [x.id, x.reason, x.ticketIds]),
        [[part.output.refund.id, 'Cannot come', [order.tickets[0].id]]],
      );

      const rest = await call(
        'refund_order',
        { id: order.id, reason: 'Event moved', returnToPool: false },
        { idempotencyKey: randomUUID() },
      );
      assert.ok(rest.ok, JSON.stringify(rest));
      assert.equal(rest.output.refund.amountMinor, 15450 - 5150);
      assert.equal(rest.output.order.state, 'refunded');
      assert.equal(rest.output.order.refundedMinor, 15450);
      // Kept out of sale: the places stay sold (taken) although their tickets are void.
      assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 10, available: 8, held: 0, sold: 2 });
      const again = await call(
        'refund_order',
        { id: order.id, reason: 'Again', returnToPool: true },
        { idempotencyKey: randomUUID() },
      );
      assert.equal(!again.ok && again.code, 'order_fully_refunded');
      const refunded = await call('list_orders', { merchantId: s.shopId, state: 'refunded' });
      assert.deepEqual(refunded.ok && refunded.output.orders.map((o: any) => o.id), [order.id]);
    } finally {
      await conn.done();
    }
  });
}

test('concurrent refunds of one order never refund more than was paid', async () => {
  const s = await shopWithTier(h, { capacity: 20, priceMinor: 3333, feePerTicketMinor: 1 });
  const order = await paidOrder(s, 4);
  const [t1, t2, t3] = order.tickets.map((t: any) => t.id);
  const attempts = [
    ...Array.from({ length: 6 }, () => ({ reason: 'whole', returnToPool: true })),
    { ticketIds: [t1], reason: 'one', returnToPool: true },
    { ticketIds: [t1, t2], reason: 'two', returnToPool: false },
    { ticketIds: [t3], reason: 'three', returnToPool: true },
    { ticketIds: [t2, t3], reason: 'four', returnToPool: false },
  ];
  const results = await Promise.all(
    attempts.map((body) => s.api.post(`/v1/ticketing/orders/${order.id}/refunds`, body, key())),
  );
  for (const r of results) assert.ok([200, 409].includes(r.status), JSON.stringify(r.body));
  const ok = results.filter((r) => r.status === 200);
  assert.ok(ok.length >= 1);
  const refundedTickets = ok.flatMap((r) => r.body.refund.ticketIds);
  assert.equal(new Set(refundedTickets).size, refundedTickets.length, 'a ticket was refunded twice');
  const final = must(await s.api.get(`/v1/ticketing/orders/${order.id}`), 200);
  const sum = ok.reduce((n, r) => n + r.body.refund.amountMinor, 0);
  assert.equal(final.refundedMinor, sum);
  assert.ok(final.refundedMinor <= final.totalMinor);
  // The provider's own ledger agrees, and never exceeds the charge.
  const [ledger] = await h.db.execute<{ n: number }>(
    `select coalesce(sum(r.amount_minor), 0)::int as n from sandbox_refunds r join sandbox_charges c on c.id = r.charge_id
      where c.payment_reference = ? and r.outcome = 'succeeded'`,
    [order.paymentId],
  );
  assert.equal(ledger!.n, sum);
  // Whatever the interleaving, refunding what is left brings the total to exactly what was paid.
  const restRes = await s.api.post(
    `/v1/ticketing/orders/${order.id}/refunds`,
    { reason: 'rest', returnToPool: true },
    key(),
  );
  const done = restRes.status === 200 ? restRes.body.order : final;
  if (done.state !== 'refunded') assert.equal(restRes.status, 200, JSON.stringify(restRes.body));
  const end = must(await s.api.get(`/v1/ticketing/orders/${order.id}`), 200);
  assert.equal(end.state, 'refunded');
  assert.equal(end.refundedMinor, 4 * 3334);
  assert.ok(end.tickets.every((t: any) => t.state === 'void'));
  await assertInvariant(h.db, s.poolId);
});

test('a refund the provider refuses leaves the order paid and says so', async () => {
  const s = await shopWithTier(h);
  const order = await paidOrder(s, 2, 'pm_sandbox_refund_fails');
  const res = await s.api.post(
    `/v1/ticketing/orders/${order.id}/refunds`,
    { reason: 'Customer asked', returnToPool: true },
    key(),
  );
  assert.equal(res.status, 402);
  assert.equal(res.body.code, 'refund_failed');
  assert.equal(res.body.details.orderState, 'completed');
  assert.equal(res.body.details.refundedMinor, 0);
  const read = must(await s.api.get(`/v1/ticketing/orders/${order.id}`), 200);
  assert.equal(read.state, 'completed');
  assert.deepEqual(
    read.tickets.map((t: any) => t.state),
    ['valid', 'valid'],
  );
  assert.deepEqual(
    read.refunds.map((r: any) => [r.state, r.failureCode]),
    [['failed', 'refund_failed']],
  );
  assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 10, available: 8, held: 0, sold: 2 });
  assert.equal(await count(h.db, `from webhook_events where type = 'refund.failed' and shop_id = ?`, [s.shopId]), 1);
});

test('a refund that settles later completes by the provider’s signed event, once', async () => {
  const s = await shopWithTier(h, { priceMinor: 2000 });
  const order = await paidOrder(s, 2, 'pm_sandbox_refund_async');
  const k = key();
  const res = await s.api.post(
    `/v1/ticketing/orders/${order.id}/refunds`,
    { ticketIds: [order.tickets[1].id], reason: 'Late', returnToPool: true },
    k,
  );
  assert.equal(res.status, 202, JSON.stringify(res.body));
  assert.equal(res.body.refund.state, 'pending');
  assert.equal(res.body.order.state, 'completed');
  const replay = await s.api.post(
    `/v1/ticketing/orders/${order.id}/refunds`,
    { ticketIds: [order.tickets[1].id], reason: 'Late', returnToPool: true },
    k,
  );
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.body.refund.id, res.body.refund.id);
  const twice = await s.api.post(
    `/v1/ticketing/orders/${order.id}/refunds`,
    { ticketIds: [order.tickets[1].id], reason: 'Again', returnToPool: true },
    key(),
  );
  assert.equal(twice.status, 409);
  assert.equal(twice.body.code, 'ticket_not_refundable');
  h.clock.advance(3000);
  const report = await h.app.services.payments.settleDue();
  assert.ok(report.delivered >= 1);
  const read = must(await s.api.get(`/v1/ticketing/orders/${order.id}`), 200);
  assert.equal(read.state, 'partially_refunded');
  assert.equal(read.refundedMinor, 2000);
  assert.deepEqual(
    read.tickets.map((t: any) => t.state),
    ['valid', 'void'],
  );
  assert.equal(read.refunds[0].state, 'succeeded');
  assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 10, available: 9, held: 0, sold: 1 });
  assert.equal(await count(h.db, `from webhook_events where type = 'ticket.voided' and shop_id = ?`, [s.shopId]), 1);
  assert.equal(await count(h.db, `from webhook_events where type = 'order.refunded' and shop_id = ?`, [s.shopId]), 1);
});

test('refunds are for the merchant: another organization’s order answers 404, unknown fields and foreign tickets are refused', async () => {
  const s = await shopWithTier(h);
  const other = await shopWithTier(h);
  const order = await paidOrder(s, 1);
  const foreign = await other.api.post(
    `/v1/ticketing/orders/${order.id}/refunds`,
    { reason: 'x', returnToPool: true },
    key(),
  );
  assert.equal(foreign.status, 404);
  assert.equal(foreign.body.code, 'not_found');
  const unknownField = await s.api.post(
    `/v1/ticketing/orders/${order.id}/refunds`,
    { reason: 'x', returnToPool: true, amountMinor: 5 },
    key(),
  );
  assert.equal(unknownField.body.code, 'unknown_field');
  const notMine = await s.api.post(
    `/v1/ticketing/orders/${order.id}/refunds`,
    { reason: 'x', ticketIds: ['tkt_nope'], returnToPool: true },
    key(),
  );
  assert.equal(notMine.status, 404);
  assert.equal(must(await s.api.get(`/v1/ticketing/orders/${order.id}`), 200).state, 'completed');
});
