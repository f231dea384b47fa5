/**
 * Money never moves twice when the provider's answer is lost: the payment stays pending, and both a
 * retried confirm and the sweeper's reconciliation ask the provider again about the SAME payment id.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { count, key, must, reserveOne, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
  // A trigger on the sandbox acquirer's ledger stands in for the network: while it raises, the provider call throws.
  await h.db.execute(`create function outage() returns trigger language plpgsql as $$ begin return new; end $$`);
  await h.db.execute(`create trigger outage before insert on sandbox_charges for each row execute function outage()`);
});
after(async () => {
  await h?.close();
});

/** Makes the provider unreachable until `restore()`. */
async function failNextCharge(): Promise<void> {
  await h.db.execute(
    `create or replace function outage() returns trigger language plpgsql as $$ begin raise exception 'acquirer down'; end $$`,
  );
}
async function restore(): Promise<void> {
  await h.db.execute(
    `create or replace function outage() returns trigger language plpgsql as $$ begin return new; end $$`,
  );
}

const chargesFor = (reservationId: string) =>
  count(h.db, 'from sandbox_charges c join payments p on p.id = c.payment_reference where p.reservation_id = ?', [
    reservationId,
  ]);

test('a charge whose answer was lost is asked about again on retry, even with another card: one charge, one order', async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const r = await reserveOne(s.api, s.tierId, 1);
  const id = r.reservation.id;
  await failNextCharge();
  const down = await s.api.post(
    `/v1/ticketing/reservations/${id}/confirm`,
    { paymentMethod: 'pm_sandbox_visa' },
    key(),
  );
  assert.deepEqual([down.status, down.body.code, down.body.details.outcome], [503, 'unavailable', 'unknown']);
  const pending = must(await s.api.get(`/v1/ticketing/reservations/${id}`), 200);
  assert.deepEqual([pending.reservation.state, pending.payment.state], ['confirming', 'pending']);
  await assertInvariant(h.db, s.poolId);

  // The provider did take the money (its answer was lost): its ledger has the charge under our payment id.
  await restore();
  await h.db.execute(
    `insert into sandbox_charges (id, payment_reference, payment_method, amount_minor, currency, outcome, failure_code, state, settle_at, created_at, settled_at)
     values ('sch_lostanswer00001', ?, 'pm_sandbox_visa', ?, 'EUR', 'succeeded', null, 'succeeded', null, ?, ?)`,
    [pending.payment.id, pending.payment.amountMinor, h.clock.now(), h.clock.now()],
  );
  const retried = must(
    await s.api.post(`/v1/ticketing/reservations/${id}/confirm`, { paymentMethod: 'pm_sandbox_mastercard' }, key()),
    200,
  );
  assert.equal(retried.reservation.state, 'completed');
  assert.equal(retried.payment.id, pending.payment.id, 'the same payment, not a second attempt');
  assert.equal(retried.payment.paymentMethod, 'pm_sandbox_visa', 'the card of the charge that happened');
  assert.equal(await chargesFor(id), 1, 'money moved once');
  assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 3, available: 2, held: 0, sold: 1 });
});

test('without a client retry, the sweeper reconciles an unknown outcome: declined charges give the places back', async () => {
  const s = await shopWithTier(h, { capacity: 2 });
  const r = await reserveOne(s.api, s.tierId, 1);
  await failNextCharge();
  const down = await s.api.post(
    `/v1/ticketing/reservations/${r.reservation.id}/confirm`,
    { paymentMethod: 'pm_sandbox_declined' },
    key(),
  );
  assert.equal(down.status, 503);
  await restore();
  assert.equal(await h.app.sweeper.reconcilePayments(h.clock.now()), 0, 'too early: the provider may still answer');
  h.clock.advance(31_000);
  assert.equal(await h.app.sweeper.reconcilePayments(h.clock.now()), 1);
  const after = must(await s.api.get(`/v1/ticketing/reservations/${r.reservation.id}`), 200);
  assert.deepEqual(
    [after.reservation.state, after.payment.state, after.payment.failureCode],
    ['held', 'failed', 'payment_declined'],
  );
  assert.equal(await chargesFor(r.reservation.id), 1);
  await assertInvariant(h.db, s.poolId);
});
