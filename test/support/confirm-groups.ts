/**
 * Making a confirm group happen without timing (test/spine/grouped-confirms.test.ts, first-step-groups.test.ts): one
 * blocker confirm per group slot waits on a lock the test holds on its reservation, the calls under test queue behind
 * it, and once they are all queued the lock is let go, so they run as ONE group.
 */
import assert from 'node:assert/strict';
import { sql, type Database } from '../../src/storage/database.ts';
import { until } from './batching.ts';
import type { Harness } from './harness.ts';
import type { RestResponse } from './rest.ts';
import { confirmWith, count, must, reserveOne, shopWithTier, startSpineHarness, type Shop } from './spine.ts';

/**
 * A spine harness whose process has made one purchase: its confirm groups exist, and what a process reads once (the
 * API key, the ticket-signing key) is read.
 */
export async function startWarmHarness(): Promise<Harness> {
  const h = await startSpineHarness();
  const s = await shopWithTier(h, { capacity: 5 });
  must(await confirmWith(s.api, (await reserveOne(s.api, s.tierId)).reservation.id, 'pm_sandbox_visa'), 200);
  return h;
}

/**
 * Holds row locks on the reservations `ids` (`for share`: a state change waits; `for key share`: only a delete or key
 * change does) from a transaction of the test's own until `release()`.
 */
export async function lockReservations(
  db: Database,
  ids: string[],
  mode: 'share' | 'key share',
): Promise<{ release: () => Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const done = db.transaction(async (em) => {
    await sql(em, `select id from reservations where id = any(string_to_array(?, ',')) for ${mode}`, [ids.join(',')]);
    locked();
    await released;
  });
  await Promise.race([isLocked, done]);
  return {
    release: async () => {
      release();
      await done;
    },
  };
}

/** The sandbox charges made for a reservation's payments. */
export const chargesOf = (db: Database, reservationId: string) =>
  count(db, 'from sandbox_charges c join payments p on p.id = c.payment_reference where p.reservation_id = ?', [
    reservationId,
  ]);

/**
 * Runs `calls` as one group of `groups` (which runs `slots` groups at once), behind one blocker confirm per slot whose
 * reservation is locked `mode`; answers in call order.
 */
export async function asOneGroup(
  db: Database,
  s: Shop,
  groups: { readonly stats: { groups: number; calls: number }; readonly inFlight: number; readonly queued: number },
  slots: number,
  mode: 'share' | 'key share',
  calls: (() => Promise<RestResponse>)[],
): Promise<RestResponse[]> {
  const blockers = await Promise.all(
    Array.from({ length: slots }, async () => (await reserveOne(s.api, s.tierId)).reservation.id),
  );
  const lock = await lockReservations(db, blockers, mode);
  const before = groups.stats;
  let blocked: Promise<RestResponse>[] = [];
  try {
    blocked = blockers.map((id) => confirmWith(s.api, id, 'pm_sandbox_visa'));
    await until(() => groups.inFlight === slots, 'every group slot taken by a blocker');
    const rest = calls.map((c) => c());
    await until(() => groups.queued === calls.length, `${calls.length} calls queued (${groups.queued})`);
    await lock.release();
    const results = await Promise.all(rest);
    for (const b of await Promise.all(blocked)) must(b, 200);
    const after = groups.stats;
    assert.deepEqual(
      { groups: after.groups - before.groups, calls: after.calls - before.calls },
      { groups: slots + 1, calls: slots + calls.length },
      'the queued calls ran as one group',
    );
    return results;
  } finally {
    await lock.release();
    await Promise.allSettled(blocked);
  }
}
