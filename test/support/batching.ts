/**
 * Making a reserve batch happen without timing (test/spine/hot-pool.test.ts, test/spine/batch-keys.test.ts): a test
 * holds the pool's row lock from its own transaction, so the first reserve's batch waits on it and every other reserve
 * queues behind it (one batch in flight); once they are all queued the lock is let go and they run as ONE batch.
 */
import assert from 'node:assert/strict';
import { reserveBatcher } from '../../src/domain/purchase/reserve-batcher.ts';
import { sql, type Database } from '../../src/storage/database.ts';
import type { Harness } from './harness.ts';
import type { RestResponse } from './rest.ts';

/** Resolves once `cond()` holds; checks every few ms up to a generous bound (the machine may be busy). */
export async function until(cond: () => boolean | Promise<boolean>, what: string, boundMs = 120_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Holds the pool's row lock from a transaction of the test's own until `release()`; `done` settles once it has ended.
 */
export async function lockPool(db: Database, poolId: string): Promise<{ release: () => void; done: Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const done = db.transaction(async (em) => {
    await sql(em, 'select id from pools where id = ? for no key update', [poolId]);
    locked();
    await released;
  });
  await Promise.race([isLocked, done]);
  return { release, done };
}

/**
 * Runs `calls` as one batch on `h`'s server: `poolId`'s row is locked until the first call's batch is waiting on it and
 * the rest are queued behind, then released. Returns the responses in call order.
 */
export async function asOneBatch(
  h: Harness,
  poolId: string,
  calls: (() => Promise<RestResponse>)[],
): Promise<RestResponse[]> {
  const batcher = reserveBatcher(h.app.services);
  const { release, done: locker } = await lockPool(h.db, poolId);
  let results: RestResponse[];
  const before = batcher.stats;
  try {
    const first = calls[0]!();
    await until(
      () => batcher.stats.batches === before.batches + 1 && batcher.inFlight === 1,
      'the first batch to start',
    );
    const rest = calls.slice(1).map((c) => c());
    await until(() => batcher.queued === calls.length - 1, `${calls.length - 1} calls queued (${batcher.queued})`);
    release();
    results = await Promise.all([first, ...rest]);
  } finally {
    release();
    await locker;
  }
  // Two batches in all (the first call's, then every queued call's): `largest` alone could not say so, being the
  // largest batch the process ever ran.
  const after = batcher.stats;
  assert.ok(after.largest >= calls.length - 1, 'the queued calls ran as one batch');
  assert.deepEqual(
    { batches: after.batches - before.batches, calls: after.calls - before.calls },
    { batches: 2, calls: calls.length },
    'the queued calls ran as one batch',
  );
  return results;
}
