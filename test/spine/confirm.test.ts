import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { confirmWith, count, key, must, reserveOne, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

test('a sync payment completes the order with one unique ticket code per place', async () => {
  const s = await shopWithTier(h, { capacity: 5, priceMinor: 2500, feePerTicketMinor: 100 });
  const { reservation } = await reserveOne(s.api, s.tierId, 3);
  const out = must(await confirmWith(s.api, reservation.id, 'pm_sandbox_visa'), 200);
  assert.equal(out.reservation.state, 'completed');
  assert.equal(out.payment.state, 'succeeded');
  assert.equal(out.payment.amountMinor, 7800);
  assert.equal(out.payment.scheme, 'visa');
  assert.equal(out.order.state, 'completed');
  assert.equal(out.order.tickets.length, 3);
  const codes = new Set<string>(out.order.tickets.map((t: { code: string }) => t.code));
  assert.equal(codes.size, 3);
  for (const code of codes) assert.ok(code.length >= 24, 'ticket codes carry at least 120 random bits');
  assert.equal(out.reservation.orderId, out.order.id);
  assert.deepEqual(must(await s.api.get(`/v1/ticketing/orders/${out.order.id}`), 200), out.order);
  assert.deepEqual(must(await s.api.get(`/v1/payments/${out.payment.id}`), 200), out.payment);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [2, 0, 3]);
});

test('a confirm replayed with the same key returns the stored response; a new key on a completed reservation charges nothing', async () => {
  const s = await shopWithTier(h);
  const { reservation } = await reserveOne(s.api, s.tierId);
  const k = key();
  const first = must(await confirmWith(s.api, reservation.id, 'pm_sandbox_mastercard', k), 200);
  const replay = await confirmWith(s.api, reservation.id, 'pm_sandbox_mastercard', k);
  assert.equal(replay.status, 200);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(replay.body, first);
  const conflict = await confirmWith(s.api, reservation.id, 'pm_sandbox_visa', k);
  assert.equal(conflict.status, 422);
  assert.equal(conflict.body.code, 'idempotency_conflict');
  const again = must(await confirmWith(s.api, reservation.id, 'pm_sandbox_visa'), 200);
  assert.equal(again.order.id, first.order.id);
  assert.equal(again.payment.id, first.payment.id);
  const n = await count(h.db, 'from payments where reservation_id = ?', [reservation.id]);
  assert.equal(n, 1);
  await assertInvariant(h.db, s.poolId);
});

test('a declined payment keeps the hold; the buyer retries with another method', async () => {
  const s = await shopWithTier(h, { capacity: 2 });
  const { reservation } = await reserveOne(s.api, s.tierId, 2);
  const declined = await confirmWith(s.api, reservation.id, 'pm_sandbox_declined');
  assert.equal(declined.status, 402);
  assert.equal(declined.body.code, 'payment_declined');
  assert.equal(declined.body.details.reservationState, 'held');
  let view = must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.equal(view.reservation.state, 'held');
  assert.equal(view.reservation.expiresAt, reservation.expiresAt, 'the hold keeps its own expiry');
  assert.equal(view.payment.state, 'failed');
  assert.equal(view.payment.failureCode, 'payment_declined');
  await assertInvariant(h.db, s.poolId);
  const poor = await confirmWith(s.api, reservation.id, 'pm_sandbox_insufficient_funds');
  assert.equal(poor.status, 402);
  assert.equal(poor.body.code, 'insufficient_funds');
  await assertInvariant(h.db, s.poolId);
  view = must(await confirmWith(s.api, reservation.id, 'pm_sandbox_amex'), 200);
  assert.equal(view.reservation.state, 'completed');
  assert.equal(view.order.tickets.length, 2);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [0, 0, 2]);
});

test("the payment method's scheme must be one the tier accepts", async () => {
  const s = await shopWithTier(h, { restrictions: { allowedSchemes: ['visa'] } });
  const { reservation } = await reserveOne(s.api, s.tierId, 1, { scheme: 'visa' });
  const res = await confirmWith(s.api, reservation.id, 'pm_sandbox_mastercard');
  assert.equal(res.status, 422);
  assert.equal(res.body.code, 'scheme_not_allowed');
  assert.equal(must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200).reservation.state, 'held');
  must(await confirmWith(s.api, reservation.id, 'pm_sandbox_visa'), 200);
  await assertInvariant(h.db, s.poolId);
});

test('confirm needs exactly one of paymentMethod and instrumentId; unknown saved cards and methods are refused', async () => {
  const s = await shopWithTier(h);
  const { reservation } = await reserveOne(s.api, s.tierId);
  const path = `/v1/ticketing/reservations/${reservation.id}/confirm`;
  const none = await s.api.post(path, {}, key());
  assert.equal(none.status, 400);
  assert.equal(none.body.code, 'invalid_input');
  const both = await s.api.post(path, { paymentMethod: 'pm_sandbox_visa', instrumentId: 'ins_x' }, key());
  assert.equal(both.status, 400);
  const saved = await s.api.post(path, { instrumentId: 'ins_0000000000' }, key());
  assert.equal(saved.status, 404, 'a merchant key has no saved cards (saved cards are the buyer issue’s: test/buyer)');
  const unknown = await s.api.post(path, { paymentMethod: 'pm_sandbox_bitcoin' }, key());
  assert.equal(unknown.status, 422);
  assert.equal(unknown.body.code, 'unknown_payment_method');
  const noKey = await s.api.post(path, { paymentMethod: 'pm_sandbox_visa' });
  assert.equal(noKey.status, 400);
  assert.equal(noKey.body.code, 'missing_idempotency_key');
  assert.equal(must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200).reservation.state, 'held');
  await assertInvariant(h.db, s.poolId);
});

test('release gives the places back exactly once; a released reservation cannot be confirmed', async () => {
  const s = await shopWithTier(h, { capacity: 4 });
  const { reservation } = await reserveOne(s.api, s.tierId, 3);
  await assertInvariant(h.db, s.poolId);
  const first = must(await s.api.post(`/v1/ticketing/reservations/${reservation.id}/release`, {}), 200);
  assert.equal(first.reservation.state, 'released');
  assert.equal(first.reservation.releaseReason, 'buyer');
  let c = await assertInvariant(h.db, s.poolId);
  assert.equal(c.available, 4);
  const second = must(await s.api.post(`/v1/ticketing/reservations/${reservation.id}/release`, {}), 200);
  assert.equal(second.reservation.state, 'released');
  c = await assertInvariant(h.db, s.poolId);
  assert.equal(c.available, 4);
  const late = await confirmWith(s.api, reservation.id, 'pm_sandbox_visa');
  assert.equal(late.status, 409);
  assert.equal(late.body.code, 'reservation_released');
  const n = await count(
    h.db,
    `from webhook_events where type = 'reservation.released' and data->'reservation'->>'id' = ?`,
    [reservation.id],
  );
  assert.equal(n, 1, 'reservation.released is emitted once');
});

test('a completed reservation cannot be released', async () => {
  const s = await shopWithTier(h);
  const { reservation } = await reserveOne(s.api, s.tierId);
  must(await confirmWith(s.api, reservation.id, 'pm_sandbox_visa'), 200);
  const res = await s.api.post(`/v1/ticketing/reservations/${reservation.id}/release`, {});
  assert.equal(res.status, 409);
  assert.equal(res.body.code, 'reservation_not_held');
  await assertInvariant(h.db, s.poolId);
});

test('authorize_payment is the one-shot payment of a held reservation', async () => {
  const s = await shopWithTier(h);
  const { reservation } = await reserveOne(s.api, s.tierId);
  const noKey = await s.api.post('/v1/payments/authorize', {
    reservationId: reservation.id,
    paymentMethod: 'pm_sandbox_visa',
  });
  assert.equal(noKey.status, 400);
  const out = must(
    await s.api.post(
      '/v1/payments/authorize',
      { reservationId: reservation.id, paymentMethod: 'pm_sandbox_visa' },
      key(),
    ),
    200,
  );
  assert.equal(out.reservation.state, 'completed');
  assert.equal(out.order.tickets.length, 1);
  assert.equal(must(await s.api.get(`/v1/payments/${out.payment.id}`), 200).state, 'succeeded');
  await assertInvariant(h.db, s.poolId);
});

test('order.completed and payment.failed are recorded in the outbox with the state change', async () => {
  const s = await shopWithTier(h);
  const { reservation } = await reserveOne(s.api, s.tierId);
  await confirmWith(s.api, reservation.id, 'pm_sandbox_declined');
  h.clock.advance(1000);
  must(await confirmWith(s.api, reservation.id, 'pm_sandbox_visa'), 200);
  const rows = await h.db.execute<{ type: string }>(
    `select type from webhook_events where shop_id = ? and data->'reservation'->>'id' = ? order by created_at`,
    [s.shopId, reservation.id],
  );
  assert.deepEqual(
    rows.map((r) => r.type),
    ['payment.failed', 'order.completed'],
  );
});

test('eight concurrent confirms of one reservation with different keys charge once and answer one completed order', async () => {
  const s = await shopWithTier(h, { capacity: 4 });
  const { reservation } = await reserveOne(s.api, s.tierId, 2);
  const outs = await Promise.all(
    Array.from({ length: 8 }, () => confirmWith(s.api, reservation.id, 'pm_sandbox_visa').then((r) => must(r, 200))),
  );
  const orders = new Set(outs.map((o) => o.order.id));
  assert.equal(orders.size, 1);
  for (const o of outs) assert.equal(o.order.tickets.length, 2);
  assert.equal(await count(h.db, 'from payments where reservation_id = ?', [reservation.id]), 1);
  assert.equal(await count(h.db, 'from orders where reservation_id = ?', [reservation.id]), 1);
  assert.equal(await count(h.db, 'from tickets where order_id = ?', [outs[0].order.id]), 2);
  const charged = 'from sandbox_charges c join payments p on p.id = c.payment_reference where p.reservation_id = ?';
  assert.equal(await count(h.db, charged, [reservation.id]), 1);
  assert.equal(
    await count(h.db, "from webhook_events where type = 'order.completed' and data->'order'->>'id' = ?", [
      outs[0].order.id,
    ]),
    1,
  );
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [2, 0, 2]);
});
