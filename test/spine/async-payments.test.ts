import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { confirmWith, count, key, must, reserveOne, shopWithTier, startSpineHarness } from '../support/spine.ts';
import { verifies } from '../support/requirements.ts';
import { taskStateToJSON } from '@a2a-js/sdk';
import { a2aClient, sendParts } from '../support/a2a.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness({ SANDBOX_SETTLE_MS: '3000' });
});
after(async () => {
  await h?.close();
});

/** The outbox events of a reservation, sorted by name (events written in one transaction share a timestamp). */
const eventTypes = async (reservationId: string): Promise<string[]> =>
  (
    await h.db.execute<{ type: string }>(`select type from webhook_events where data->'reservation'->>'id' = ?`, [
      reservationId,
    ])
  )
    .map((r) => r.type)
    .sort();

const sweep = () => h.app.sweeper.sweepExpiredHolds(h.clock.now(), 100);
const settle = () => h.app.services.payments.settleDue();

test(`${verifies('SPEC-3-confirm-async-202')}an async payment answers 202, never charges twice, and the signed event completes the order`, async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const { reservation } = await reserveOne(s.api, s.tierId, 2);
  const pending = await confirmWith(s.api, reservation.id, 'pm_sandbox_async_success');
  assert.equal(pending.status, 202, JSON.stringify(pending.body));
  assert.equal(pending.body.reservation.state, 'confirming');
  assert.equal(pending.body.payment.state, 'pending');
  assert.equal(pending.body.pollUrl, `${h.url}/v1/ticketing/reservations/${reservation.id}`);
  assert.match(pending.body.next, /Do not submit the payment again/);
  assert.ok(new Date(pending.body.reservation.paymentDeadline) > new Date(reservation.expiresAt));
  await assertInvariant(h.db, s.poolId);

  const second = await confirmWith(s.api, reservation.id, 'pm_sandbox_visa');
  assert.equal(second.status, 202);
  assert.equal(second.body.payment.id, pending.body.payment.id);
  const release = await s.api.post(`/v1/ticketing/reservations/${reservation.id}/release`, {});
  assert.equal(release.status, 409);
  assert.equal(release.body.code, 'payment_in_flight');
  const n = await count(h.db, 'from sandbox_charges where payment_reference = ?', [pending.body.payment.id]);
  assert.equal(n, 1, 'one charge at the provider');

  assert.deepEqual(
    await settle(),
    { settled: 0, attempted: 0, delivered: 0 },
    'nothing is due before SANDBOX_SETTLE_MS',
  );
  h.clock.advance(3000);
  assert.deepEqual(await settle(), { settled: 1, attempted: 1, delivered: 1 });
  const done = must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.equal(done.reservation.state, 'completed');
  assert.equal(done.payment.state, 'succeeded');
  assert.equal(done.order.tickets.length, 2);
  assert.equal(done.pollUrl, undefined);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [1, 0, 2]);
  assert.deepEqual(await eventTypes(reservation.id), ['order.completed', 'order.pending']);
});

test(`${verifies('SPEC-3-confirm-async-202')}an async failure releases the places once and reports payment.failed`, async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const { reservation } = await reserveOne(s.api, s.tierId, 2);
  assert.equal((await confirmWith(s.api, reservation.id, 'pm_sandbox_async_failure')).status, 202);
  await assertInvariant(h.db, s.poolId);
  h.clock.advance(3000);
  await settle();
  const view = must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.equal(view.reservation.state, 'released');
  assert.equal(view.reservation.releaseReason, 'payment_failed');
  assert.equal(view.payment.state, 'failed');
  assert.equal(view.payment.failureCode, 'payment_declined');
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [3, 0]);
  assert.deepEqual(await eventTypes(reservation.id), ['order.pending', 'payment.failed', 'reservation.released']);
  const again = await confirmWith(s.api, reservation.id, 'pm_sandbox_visa');
  assert.equal(again.body.code, 'reservation_released');
});

test('late success: the payment deadline passed and the hold was swept, the places are re-taken', async () => {
  const s = await shopWithTier(h, { capacity: 2 });
  const { reservation } = await reserveOne(s.api, s.tierId, 1);
  assert.equal((await confirmWith(s.api, reservation.id, 'pm_sandbox_async_success')).status, 202);
  h.clock.advance(15 * 60_000 + 1000);
  assert.deepEqual((await sweep()).released, [reservation.id]);
  let view = must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.equal(view.reservation.state, 'released');
  assert.equal(view.reservation.releaseReason, 'expired');
  assert.equal(view.payment.state, 'pending', 'the provider is still silent; the payment is left pending');
  let c = await assertInvariant(h.db, s.poolId);
  assert.equal(c.available, 2);
  await settle();
  view = must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.equal(view.reservation.state, 'completed');
  assert.equal(view.order.state, 'completed');
  assert.equal(view.order.tickets.length, 1);
  c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [1, 0, 1]);
  assert.deepEqual(await eventTypes(reservation.id), ['order.completed', 'order.pending', 'reservation.expired']);
});

test('late success when the places were sold meanwhile: refunded automatically and reported', async () => {
  const s = await shopWithTier(h, { capacity: 1 });
  const { reservation } = await reserveOne(s.api, s.tierId, 1);
  assert.equal((await confirmWith(s.api, reservation.id, 'pm_sandbox_async_success')).status, 202);
  h.clock.advance(16 * 60_000);
  await sweep();
  await assertInvariant(h.db, s.poolId);
  const other = await reserveOne(s.api, s.tierId, 1);
  must(await confirmWith(s.api, other.reservation.id, 'pm_sandbox_visa'), 200);
  await assertInvariant(h.db, s.poolId);
  await settle();
  const view = must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.equal(view.reservation.state, 'released');
  assert.equal(view.payment.state, 'refunded');
  assert.equal(view.payment.refundDue, false);
  assert.equal(view.order.state, 'refunded');
  assert.equal(view.order.refundReason, 'sold_out');
  assert.deepEqual(view.order.tickets, []);
  const [charge] = await h.db.execute<{ state: string }>(
    'select state from sandbox_charges where payment_reference = ?',
    [view.payment.id],
  );
  assert.equal(charge?.state, 'refunded', 'the money went back through the provider');
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [0, 0, 1], 'never oversold');
  assert.deepEqual(await eventTypes(reservation.id), ['order.pending', 'order.refunded', 'reservation.expired']);
});

test('a decline then an async retry: the retry is the only pending payment', async () => {
  const s = await shopWithTier(h);
  const { reservation } = await reserveOne(s.api, s.tierId);
  assert.equal((await confirmWith(s.api, reservation.id, 'pm_sandbox_declined')).status, 402);
  const pending = await confirmWith(s.api, reservation.id, 'pm_sandbox_async_success', key());
  assert.equal(pending.status, 202);
  h.clock.advance(3000);
  await settle();
  assert.equal(
    must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200).reservation.state,
    'completed',
  );
  await assertInvariant(h.db, s.poolId);
});

test('issue #36 (2): over A2A a confirm pending at the provider is a WORKING task, completed when the provider answers', async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const { reservation } = await reserveOne(s.api, s.tierId, 1);
  const client = await a2aClient(h, s.apiKey);
  const input = { id: reservation.id, paymentMethod: 'pm_sandbox_async_success' };
  const task = await sendParts(client, [{ data: { skill: 'confirm', input } }]);
  assert.equal(taskStateToJSON(task.status!.state), 'TASK_STATE_WORKING', JSON.stringify(task.status));
  const first = task.artifacts[0]?.parts[0]?.content;
  assert.equal(first?.$case === 'data' && (first.value as any).payment.state, 'pending');
  // Read again before the provider answers: still working.
  assert.equal(
    taskStateToJSON((await client.getTask({ tenant: '', id: task.id, historyLength: undefined }))!.status!.state),
    'TASK_STATE_WORKING',
  );
  h.clock.advance(3000);
  assert.equal((await settle()).settled, 1);
  const done = (await client.getTask({ tenant: '', id: task.id, historyLength: undefined }))!;
  assert.equal(taskStateToJSON(done.status!.state), 'TASK_STATE_COMPLETED');
  const final = done.artifacts.at(-1)?.parts[0]?.content;
  assert.ok(final?.$case === 'data');
  assert.equal((final.value as any).reservation.state, 'completed');
  assert.equal((final.value as any).order.tickets.length, 1);
  // Stored so: another read (any process) sees it completed without asking again.
  const [row] = await h.db.execute<{ state: string }>('select state from a2a_tasks where id = ?', [task.id]);
  assert.equal(row?.state, 'TASK_STATE_COMPLETED');
});
