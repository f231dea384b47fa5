/**
 * Grouped confirms (src/domain/purchase/confirm-groups.ts), over real HTTP. To make a group happen without timing, a
 * test holds KEY SHARE locks on "blocker" reservations from its own transactions: their confirms' pre-steps pass (a
 * state change takes no key lock) but their completions wait on the lock, so every group slot is taken; the confirms
 * sent next charge and queue behind, and once they are all queued the locks are let go and they complete as ONE group.
 * Then: a decline, an asynchronous (202) payment and successes in one group, replays, the same reservation twice in one
 * group, and a server process killed (SIGKILL) while its group's transaction is open.
 */
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CONFIRM_GROUPS_IN_FLIGHT,
  confirmGroups,
  type ConfirmGroups,
} from '../../src/domain/purchase/confirm-groups.ts';
import { IN_FLIGHT_STALE_MS } from '../../src/storage/idempotency-store.ts';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient, type RestResponse } from '../support/rest.ts';
import { startServerProcess } from '../support/server-process.ts';
import { until } from '../support/batching.ts';
import {
  asOneGroup as runAsOneGroup,
  chargesOf,
  startWarmHarness,
  lockReservations,
} from '../support/confirm-groups.ts';
import { confirmWith, count, key, must, reserveOne, shopWithTier, type Shop } from '../support/spine.ts';

let h: Harness;
let groups: ConfirmGroups;
before(async () => {
  h = await startWarmHarness(); // the first purchase makes the process's groups
  groups = confirmGroups(h.app.services)!;
});
after(async () => {
  await h?.close();
});

/** Whether the reservation's payment row is locked by an open transaction (written there, not committed). */
async function rowLocked(reservationId: string): Promise<boolean> {
  try {
    await h.db.execute('select id from payments where reservation_id = ? for update nowait', [reservationId]);
    return false;
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') return true;
    throw err;
  }
}

const charges = (reservationId: string) => chargesOf(h.db, reservationId);

const asOneGroup = (s: Shop, calls: (() => Promise<RestResponse>)[]) =>
  runAsOneGroup(h.db, s, groups, CONFIRM_GROUPS_IN_FLIGHT, 'key share', calls);

test('a decline, an asynchronous payment and successes in one group: each keeps its own outcome, one charge each, and each replays it without a second charge', async () => {
  const s = await shopWithTier(h, { capacity: 20 });
  const methods = ['pm_sandbox_visa', 'pm_sandbox_declined', 'pm_sandbox_async_success', 'pm_sandbox_mastercard'];
  const rs: string[] = [];
  for (let i = 0; i < methods.length; i++) rs.push((await reserveOne(s.api, s.tierId, 2)).reservation.id as string);
  const keys = methods.map(() => key());
  const calls = methods.map((m, i) => () => confirmWith(s.api, rs[i]!, m, keys[i]));
  const [paid, declined, pending, paid2] = await asOneGroup(s, calls);
  assert.equal(paid!.status, 200);
  assert.equal(paid!.body.order.tickets.length, 2);
  assert.equal(paid2!.status, 200);
  assert.equal(declined!.status, 402);
  assert.equal(declined!.body.code, 'payment_declined');
  assert.equal(declined!.body.details.reservationState, 'held'); // the hold is back
  assert.equal(pending!.status, 202);
  assert.equal(pending!.body.payment.state, 'pending');
  assert.ok(pending!.body.pollUrl);
  const reservation = must(await s.api.get(`/v1/ticketing/reservations/${rs[1]}`), 200);
  assert.equal(reservation.reservation.state, 'held');
  for (const id of rs) assert.equal(await charges(id), 1);
  // Each key holds its own outcome, stored with the group: a replay answers it and charges nothing.
  const answers = [paid!, declined!, pending!, paid2!];
  for (let i = 0; i < methods.length; i++) {
    const again = await confirmWith(s.api, rs[i]!, methods[i]!, keys[i]);
    assert.equal(again.status, answers[i]!.status);
    assert.deepEqual(again.body, answers[i]!.body);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(await charges(rs[i]!), 1);
  }
  const counts = await assertInvariant(h.db, s.poolId);
  // The blockers and two paid purchases of 2 sold; the declined and the pending hold their places.
  assert.deepEqual({ sold: counts.sold, held: counts.held }, { sold: CONFIRM_GROUPS_IN_FLIGHT + 4, held: 4 });
});

test('the same reservation confirmed twice in one group, with two keys: one charge, one order, both answer it', async () => {
  const s = await shopWithTier(h, { capacity: 10 });
  const id = (await reserveOne(s.api, s.tierId)).reservation.id as string;
  const [a, b] = await asOneGroup(s, [
    () => confirmWith(s.api, id, 'pm_sandbox_visa'),
    () => confirmWith(s.api, id, 'pm_sandbox_visa'),
  ]);
  assert.deepEqual([a!.status, b!.status], [200, 200]);
  assert.equal(a!.body.order.id, b!.body.order.id);
  assert.equal(await charges(id), 1);
  assert.equal(await count(h.db, 'from orders where reservation_id = ?', [id]), 1);
  assert.equal(await count(h.db, 'from payments where reservation_id = ?', [id]), 1);
  await assertInvariant(h.db, s.poolId);
});

test("a server process killed while its group's transaction is open: nothing half-written, no second charge, and a retry with the same key completes the purchase once", async () => {
  const child = await startServerProcess(
    {
      DATABASE_URL: h.dbUrl,
      SWEEP_INTERVAL_MS: '0',
      SANDBOX_DISPATCH_MS: '0',
      WEBHOOK_DISPATCH_MS: '0',
      RATE_LIMIT_PER_MINUTE: '100000',
    },
    180_000,
  );
  const s = await shopWithTier(h, { capacity: 10 });
  const api = restClient(child.url, s.apiKey);
  const hold = async () => (await reserveOne(s.api, s.tierId)).reservation.id as string;
  const blockers: string[] = [];
  for (let i = 0; i < CONFIRM_GROUPS_IN_FLIGHT; i++) blockers.push(await hold());
  const [b, c] = [await hold(), await hold()];
  const paymentsCharged = (ids: string[]) =>
    count(
      h.db,
      "from sandbox_charges x join payments p on p.id = x.payment_reference where p.reservation_id = any(string_to_array(?, ','))",
      [ids.join(',')],
    );
  const exited = once(child.child, 'exit');
  const first = await lockReservations(h.db, blockers, 'key share');
  const last = await lockReservations(h.db, [c], 'key share');
  const keys = [key(), key()];
  const sent: Promise<unknown>[] = [];
  try {
    // The blockers take every group slot of the child; b, then c, charge and queue behind them.
    const blocked = blockers.map((id) => confirmWith(api, id, 'pm_sandbox_visa'));
    sent.push(...blocked);
    await until(async () => (await paymentsCharged(blockers)) === blockers.length, 'the blockers charged');
    // Their answers are lost with the process.
    sent.push(confirmWith(api, b, 'pm_sandbox_visa', keys[0]).catch(() => undefined));
    await until(async () => (await paymentsCharged([b])) === 1, 'b charged');
    sent.push(confirmWith(api, c, 'pm_sandbox_visa', keys[1]).catch(() => undefined));
    await until(async () => (await paymentsCharged([c])) === 1, 'c charged');
    // The blockers complete; b and c run as one group, whose transaction writes b's completion and waits on c's lock.
    await first.release();
    for (const r of await Promise.all(blocked)) must(r, 200);
    await until(async () => {
      const [row] = await h.db.execute<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      return row!.n === 1 && (await rowLocked(b));
    }, "the child's group transaction open, b's completion written in it and c's waiting");
    child.child.kill('SIGKILL');
    await exited;
  } finally {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill('SIGKILL');
    await exited;
    await last.release();
    await first.release();
    await Promise.allSettled(sent);
  }
  // Nothing of the group committed: b and c are still paying, each charged once, the pool's places intact.
  for (const id of [b, c]) {
    const view = must(await s.api.get(`/v1/ticketing/reservations/${id}`), 200);
    assert.equal(view.reservation.state, 'confirming');
    assert.equal(await count(h.db, 'from orders where reservation_id = ?', [id]), 0);
  }
  await assertInvariant(h.db, s.poolId);
  // The killed process's keys are in flight until they are stale; then the retry asks the provider about the same
  // payment (no second charge) and completes the purchase once.
  const retry = (i: number) => confirmWith(s.api, [b, c][i]!, 'pm_sandbox_visa', keys[i]);
  assert.equal((await retry(0)).status, 409);
  h.clock.advance(IN_FLIGHT_STALE_MS + 120_000);
  for (let i = 0; i < 2; i++) {
    const done = must(await retry(i), 200);
    assert.equal(done.reservation.state, 'completed');
    assert.equal(must(await retry(i), 200).order.id, done.order.id); // then the stored outcome
  }
  for (const id of [b, c]) {
    assert.equal(await paymentsCharged([id]), 1);
    assert.equal(await count(h.db, 'from orders where reservation_id = ?', [id]), 1);
  }
  const counts = await assertInvariant(h.db, s.poolId);
  assert.equal(counts.sold, blockers.length + 2);
});
