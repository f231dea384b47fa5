/**
 * Grouped first steps of confirms (src/domain/purchase/first-step-groups.ts), over real HTTP. To make a group happen
 * without timing, a test holds a FOR SHARE lock on a "blocker" reservation from its own transaction: the blocker's
 * confirm runs alone (the slot taken) and its move to `confirming` waits on the lock; the confirms sent next queue
 * behind it, and once they are all queued the lock is let go and their keys and first steps commit as ONE group. Then:
 * replays, a conflicting key and a key twice in one group, one reservation twice in one, a released one beside held
 * ones.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FIRST_STEP_GROUPS_IN_FLIGHT,
  firstStepGroups,
  type FirstStepGroups,
} from '../../src/domain/purchase/first-step-groups.ts';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import type { RestResponse } from '../support/rest.ts';
import { asOneGroup as runAsOneGroup, chargesOf, startWarmHarness } from '../support/confirm-groups.ts';
import { confirmWith, count, key, must, reserveOne, shopWithTier, type Shop } from '../support/spine.ts';

let h: Harness;
let groups: FirstStepGroups;
before(async () => {
  h = await startWarmHarness(); // the first purchase makes the process's groups
  groups = firstStepGroups(h.app.services)!;
});
after(async () => {
  await h?.close();
});

const charges = (reservationId: string) => chargesOf(h.db, reservationId);

const asOneGroup = (s: Shop, calls: (() => Promise<RestResponse>)[]) =>
  runAsOneGroup(h.db, s, groups, FIRST_STEP_GROUPS_IN_FLIGHT, 'share', calls);

test('replays, a conflicting key and a key twice in one first-step group: own answers, one charge each', async () => {
  const s = await shopWithTier(h, { capacity: 20 });
  const hold = async () => (await reserveOne(s.api, s.tierId)).reservation.id as string;
  const [done, other, fresh, twice] = [await hold(), await hold(), await hold(), await hold()];
  const doneKey = key();
  const first = await confirmWith(s.api, done, 'pm_sandbox_visa', doneKey);
  must(first, 200);
  const twiceKey = key();
  const [replay, conflict, paid, t1, t2] = await asOneGroup(s, [
    () => confirmWith(s.api, done, 'pm_sandbox_visa', doneKey),
    () => confirmWith(s.api, other, 'pm_sandbox_visa', doneKey),
    () => confirmWith(s.api, fresh, 'pm_sandbox_visa'),
    () => confirmWith(s.api, twice, 'pm_sandbox_visa', twiceKey),
    () => confirmWith(s.api, twice, 'pm_sandbox_visa', twiceKey),
  ]);
  assert.equal(replay!.status, 200);
  assert.deepEqual(replay!.body, first.body);
  assert.equal(replay!.headers.get('idempotent-replayed'), 'true');
  assert.equal(conflict!.status, 422);
  assert.equal(conflict!.body.code, 'idempotency_conflict');
  assert.equal(paid!.status, 200);
  assert.equal(paid!.body.order.tickets.length, 1);
  assert.deepEqual(
    [t1!.status, t2!.status].sort((x, y) => x - y),
    [200, 409],
  );
  assert.equal([t1!, t2!].find((r) => r.status === 409)!.body.code, 'idempotency_in_flight');
  const { sold, held } = await assertInvariant(h.db, s.poolId);
  assert.deepEqual({ sold, held }, { sold: FIRST_STEP_GROUPS_IN_FLIGHT + 3, held: 1 }); // `other` still held
  for (const id of [done, fresh, twice]) assert.equal(await charges(id), 1);
  assert.equal(await count(h.db, 'from payments where reservation_id = ?', [other]), 0);
  // The key claimed in the group holds its call's outcome: a retry replays it, charging nothing.
  const again = await confirmWith(s.api, twice, 'pm_sandbox_visa', twiceKey);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.body, [t1!, t2!].find((r) => r.status === 200)!.body);
  assert.equal(await charges(twice), 1);
});

test('one reservation twice in one first-step group, two keys: one payment, one charge, one order', async () => {
  const s = await shopWithTier(h, { capacity: 10 });
  const id = (await reserveOne(s.api, s.tierId, 2)).reservation.id as string;
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

test('a released reservation beside held ones in one first-step group: refused, replayed; others paid', async () => {
  const s = await shopWithTier(h, { capacity: 10 });
  const hold = async () => (await reserveOne(s.api, s.tierId)).reservation.id as string;
  const [a, gone, c] = [await hold(), await hold(), await hold()];
  must(await s.api.post(`/v1/ticketing/reservations/${gone}/release`, {}), 200);
  const goneKey = key();
  const [pa, refused, pc] = await asOneGroup(s, [
    () => confirmWith(s.api, a, 'pm_sandbox_visa'),
    () => confirmWith(s.api, gone, 'pm_sandbox_visa', goneKey),
    () => confirmWith(s.api, c, 'pm_sandbox_visa'),
  ]);
  assert.deepEqual([pa!.status, refused!.status, pc!.status], [200, 409, 200]);
  assert.equal(refused!.body.code, 'reservation_released');
  const again = await confirmWith(s.api, gone, 'pm_sandbox_visa', goneKey);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.body, refused!.body);
  assert.equal(await count(h.db, 'from payments where reservation_id = ?', [gone]), 0);
  const { sold, held } = await assertInvariant(h.db, s.poolId);
  assert.deepEqual({ sold, held }, { sold: FIRST_STEP_GROUPS_IN_FLIGHT + 2, held: 0 });
});
