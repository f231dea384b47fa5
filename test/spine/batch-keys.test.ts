/**
 * The reserve batch writes each idempotency key once, with its outcome (src/storage/reserve-batch.ts, `writeBatch`),
 * taking every key to be new until the write says otherwise. These tests reach the two ways a key can turn out not to
 * be new, over real HTTP: another transaction stores it while the batch is writing (the batch waits for it, rolls back
 * and re-runs with the stored row read), and a stored row that no longer holds its key (in flight past 5 minutes, done
 * past 24 hours) is taken over by the write. And a batch over two pools, whose keys are written after both pools'
 * places.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { IDEMPOTENCY_TTL_MS, IN_FLIGHT_STALE_MS } from '../../src/storage/idempotency-store.ts';
import { sql } from '../../src/storage/database.ts';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { asOneBatch, until } from '../support/batching.ts';
import { must, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness({ RESERVE_BATCHES_IN_FLIGHT: '1' });
});
after(async () => {
  await h?.close();
});

async function quote(s: Shop, quantity = 1): Promise<string> {
  return must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity }), 201).quoteId;
}

const reserve = (s: Shop, quoteId: string, key: string) =>
  s.api.post('/v1/ticketing/reservations', { quoteId }, { 'idempotency-key': key });
/** The same reserve, to be sent later (asOneBatch). */
const call = (s: Shop, quoteId: string, key: string) => () => reserve(s, quoteId, key);

/** The scope a shop's API key stores its idempotency keys under, read from a key it stored. */
async function scopeOf(s: Shop): Promise<string> {
  const k = randomUUID();
  must(await reserve(s, await quote(s), k), 201);
  const [row] = await h.db.execute<{ scope: string }>('select scope from idempotency_keys where key = ?', [k]);
  assert.ok(row);
  return row.scope;
}

const ago = (ms: number) => new Date(h.clock.now().getTime() - ms);

test('a key another transaction stores while the batch writes: the batch waits for it, re-runs with it read, and that call is refused', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const scope = await scopeOf(s);
  const k = randomUUID();
  const q = await quote(s);
  // The test's own transaction inserts the key, in flight, and stays open until the batch's write waits on it (watched
  // from that same connection), then commits.
  let answer!: Promise<Awaited<ReturnType<typeof reserve>>>;
  await h.db.transaction(async (em) => {
    await sql(
      em,
      `insert into idempotency_keys (scope, key, request_hash, state, created_at) values (?, ?, 'another-request', 'in_flight', ?)`,
      [scope, k, h.clock.now()],
    );
    answer = reserve(s, q, k);
    await until(async () => {
      await sql(em, 'select pg_stat_clear_snapshot()'); // a transaction reads pg_stat_activity once unless told to read it again
      const rows = await sql<{ n: number }>(
        em,
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query like 'with holds as%'`, // the text shown is cut at 1 KiB
      );
      return rows[0]!.n > 0;
    }, "the batch's write to wait on the key");
  });
  const res = await answer;
  // Read after the re-run, the key holds another request: a conflict (the hash is checked before the state).
  assert.equal(res.status, 422);
  assert.equal(res.body.code, 'idempotency_conflict');
  // The batch rolled back whole and wrote nothing for the call: no hold, the quote unused, the other request's row
  // kept.
  assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 5, available: 4, held: 1, sold: 0 });
  const [row] = await h.db.execute<{ request_hash: string; state: string }>(
    'select request_hash, state from idempotency_keys where scope = ? and key = ?',
    [scope, k],
  );
  assert.deepEqual({ ...row }, { request_hash: 'another-request', state: 'in_flight' });

  // Once that request is 5 minutes in flight it counts as crashed: the next call takes the key over, then replays it.
  await h.db.execute('update idempotency_keys set created_at = ? where scope = ? and key = ?', [
    ago(IN_FLIGHT_STALE_MS + 1000),
    scope,
    k,
  ]);
  const taken = await reserve(s, q, k);
  assert.equal(taken.status, 201);
  const replayed = await reserve(s, q, k);
  assert.equal(replayed.status, 201);
  assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(replayed.body, taken.body);
  assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 5, available: 3, held: 2, sold: 0 });
});

test('a key done more than 24 hours ago is taken over by a new request in a batch; a fresher one is a conflict', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const scope = await scopeOf(s);
  const [old, fresh] = [randomUUID(), randomUUID()];
  for (const [k, at] of [
    [old, ago(IDEMPOTENCY_TTL_MS + 1000)],
    [fresh, ago(IDEMPOTENCY_TTL_MS - 60_000)],
  ] as const) {
    await h.db.execute(
      `insert into idempotency_keys (scope, key, request_hash, state, status, response, created_at) values (?, ?, 'an-old-request', 'done', 201, '{}', ?)`,
      [scope, k, at],
    );
  }
  const [a, b] = await Promise.all([reserve(s, await quote(s), old), reserve(s, await quote(s), fresh)]);
  assert.equal(a.status, 201);
  assert.equal(a.headers.get('idempotent-replayed'), null);
  assert.equal(b.status, 422);
  assert.equal(b.body.code, 'idempotency_conflict');
  const [row] = await h.db.execute<{ state: string; status: number; request_hash: string }>(
    'select state, status, request_hash from idempotency_keys where scope = ? and key = ?',
    [scope, old],
  );
  assert.equal(row!.state, 'done');
  assert.equal(row!.status, 201);
  assert.notEqual(row!.request_hash, 'an-old-request');
  assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 5, available: 3, held: 2, sold: 0 });
});

test('one batch over two pools, one of them short: places taken from both, allotted in arrival order on the short one, every key written once', async () => {
  const a = await shopWithTier(h, { capacity: 10 });
  const b = await shopWithTier(h, { capacity: 2 });
  const first = await quote(a);
  const [a1, b1, b2, a2] = [await quote(a, 2), await quote(b, 1), await quote(b, 2), await quote(a, 1)];
  const keys = Array.from({ length: 5 }, () => randomUUID());
  const calls = [
    call(a, first, keys[0]!),
    call(a, a1, keys[1]!),
    call(b, b1, keys[2]!),
    call(b, b2, keys[3]!),
    call(a, a2, keys[4]!),
  ];
  // The first call's batch waits on pool a's locked row; the other four queue and run as one batch over a and b.
  const results = await asOneBatch(h, a.poolId, calls);
  assert.deepEqual(
    results.map((r) => r.status),
    [201, 201, 201, 409, 201],
  );
  assert.equal(results[3]!.body.code, 'sold_out');
  assert.deepEqual(results[3]!.body.details, { available: 1, requested: 2, waitingList: true }); // the list is open
  assert.deepEqual(await assertInvariant(h.db, a.poolId), { capacity: 10, available: 6, held: 4, sold: 0 });
  assert.deepEqual(await assertInvariant(h.db, b.poolId), { capacity: 2, available: 1, held: 1, sold: 0 });
  // Every key holds its call's outcome, the refusal too, and replays it.
  const rows = await h.db.execute<{ state: string; status: number }>(
    `select state, status from idempotency_keys where key in (?, ?, ?, ?, ?) order by status`,
    keys,
  );
  assert.deepEqual(
    rows.map((r) => `${r.state} ${r.status}`),
    ['done 201', 'done 201', 'done 201', 'done 201', 'done 409'],
  );
  const again = await Promise.all(calls.map((call) => call()));
  again.forEach((r, i) => {
    assert.equal(r.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual([r.status, r.body], [results[i]!.status, results[i]!.body]);
  });

  // Both pools with room: the places of both are taken by one batch, and each key is written with its hold.
  const [a3, b3] = [await quote(a), await quote(b)];
  const more = await asOneBatch(h, a.poolId, [
    call(a, await quote(a), randomUUID()),
    call(a, a3, randomUUID()),
    call(b, b3, randomUUID()),
  ]);
  assert.deepEqual(
    more.map((r) => r.status),
    [201, 201, 201],
  );
  assert.deepEqual(await assertInvariant(h.db, a.poolId), { capacity: 10, available: 4, held: 6, sold: 0 });
  assert.deepEqual(await assertInvariant(h.db, b.poolId), { capacity: 2, available: 0, held: 2, sold: 0 });
});
