/**
 * The hot-pool batcher (src/domain/purchase/reserve-batcher.ts), over real HTTP. To make a batch happen on a
 * busy machine without timing, a test holds the pool's row lock from its own transaction: the first reserve's
 * batch waits on it, every other reserve queues behind it (one batch in flight), and once they are all queued
 * the lock is let go, so they run as ONE batch. Then: mixed quantities with the pool running out in the middle,
 * failing calls inside the batch, replays, idempotency keys settled inside the batch (duplicates, conflicts, replays),
 * two server processes (also one key sent to both at once); admission control is in hot-pool-admission.test.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient, type RestResponse } from '../support/rest.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { asOneBatch as runAsOneBatch } from '../support/batching.ts';
import { key, must, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness({ RESERVE_BATCHES_IN_FLIGHT: '1', RESERVE_BATCH_MAX: '64' });
});
after(async () => {
  await h?.close();
});

const asOneBatch = (poolId: string, calls: (() => Promise<RestResponse>)[]) => runAsOneBatch(h, poolId, calls);

async function quote(s: Shop, quantity: number): Promise<string> {
  return must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity }), 201).quoteId;
}

const reserve =
  (s: Shop, quoteId: string, headers = key()) =>
  () =>
    s.api.post('/v1/ticketing/reservations', { quoteId }, headers);

test('mixed quantities in one batch: places run out in the middle, granted in arrival order, nothing oversold', async () => {
  const s = await shopWithTier(h, { capacity: 10 });
  const first = await quote(s, 1);
  const quantities = [3, 4, 2, 5, 1, 2, 3, 1];
  const quotes = await Promise.all(quantities.map((q) => quote(s, q)));
  const results = await asOneBatch(s.poolId, [reserve(s, first), ...quotes.map((q) => reserve(s, q))]);
  assert.equal(results[0]!.status, 201);
  const batch = results.slice(1);
  const granted = batch.filter((r) => r.status === 201);
  const refused = batch.filter((r) => r.status !== 201);
  assert.ok(granted.length > 0 && refused.length > 0, JSON.stringify(batch.map((r) => r.status)));
  for (const r of refused) {
    assert.equal(r.status, 409);
    assert.equal(r.body.code, 'sold_out');
    assert.ok(r.body.details.available < r.body.details.requested, JSON.stringify(r.body));
  }
  const counts = await assertInvariant(h.db, s.poolId);
  const heldPlaces = 1 + granted.reduce((n, r) => n + r.body.reservation.quantity, 0);
  assert.equal(counts.held, heldPlaces);
  assert.equal(counts.available, 10 - heldPlaces);
  // Allotted in arrival order: a refused call asked for more than was left when its turn came, hence more than is left
  // now.
  for (const r of refused) assert.ok(r.body.details.requested > counts.available);
  assert.equal(new Set(granted.map((r) => r.body.reservation.id)).size, granted.length);
  const pools = must(await s.api.get(`/v1/integration/pools?merchantId=${s.shopId}`), 200);
  assert.equal(pools.pools.find((p: { id: string }) => p.id === s.poolId).availableCount, counts.available);
});

test("a quote named twice in one batch, the second time by another organization: that caller is told not found, not the owner's hold", async () => {
  const s = await shopWithTier(h, { capacity: 20 });
  const other = await shopWithTier(h, { capacity: 20 });
  const first = await quote(s, 1);
  const second = await quote(s, 1);
  // The first call of the batch waits on the locked pool; the owner's and the stranger's calls of `second` queue behind
  // it.
  const [a, b, c] = await asOneBatch(s.poolId, [reserve(s, first), reserve(s, second), reserve(other, second)]);
  assert.deepEqual([a!.status, b!.status], [201, 201]);
  assert.equal(c!.status, 404);
  assert.equal(c!.body.code, 'not_found');
  assert.ok(
    !JSON.stringify(c!.body).includes(b!.body.reservation.id),
    "the owner's hold is not shown to another organization",
  );
  const counts = await assertInvariant(h.db, s.poolId);
  assert.equal(counts.held, 2);
});

test('failing calls inside a batch fail alone; every call replays its own outcome', async () => {
  const s = await shopWithTier(h, { capacity: 20 });
  const other = await shopWithTier(h, { capacity: 20 });
  const used = await quote(s, 1);
  must(await reserve(s, used)(), 201);
  const good = await Promise.all([1, 2, 1].map((q) => quote(s, q)));
  const twice = await quote(s, 2);
  const foreign = await quote(other, 1);
  const keys = Array.from({ length: 9 }, () => key());
  const calls = [
    reserve(s, good[0]!, keys[0]),
    reserve(s, used, keys[1]), // already reserved by the same owner
    reserve(s, foreign, keys[2]), // another organization's quote: 404
    reserve(s, good[1]!, keys[3]),
    reserve(s, 'quo_doesnotexist', keys[4]),
    reserve(s, twice, keys[5]), // the same quote twice in one batch: one hold, answered to both
    reserve(s, twice, keys[6]),
    reserve(s, good[2]!, keys[7]),
  ];
  const results = await asOneBatch(s.poolId, calls);
  const [a, b, c, d, e, f, g, i] = results;
  assert.equal(a!.status, 201);
  // The same owner reserving a quote it already reserved gets that hold back (natural idempotency), holding nothing
  // more.
  assert.equal(b!.status, 201);
  assert.equal(b!.body.reservation.quoteId, used);
  assert.equal(c!.status, 404);
  assert.equal(d!.status, 201);
  assert.equal(e!.status, 404);
  // The same quote twice in one batch: one hold, and both calls answer it.
  assert.deepEqual([f!.status, g!.status], [201, 201]);
  assert.equal(f!.body.reservation.id, g!.body.reservation.id);
  assert.equal(i!.status, 201);
  const counts = await assertInvariant(h.db, s.poolId);
  assert.equal(counts.held, 1 + 1 + 2 + 2 + 1);
  await assertInvariant(h.db, other.poolId);

  // Replays: the same key and request answers the stored outcome, success or failure, byte for byte.
  const again = await Promise.all(calls.map((call) => call()));
  again.forEach((r, n) => {
    assert.equal(r.status, results[n]!.status);
    assert.deepEqual(r.body, results[n]!.body);
  });
  assert.deepEqual(await assertInvariant(h.db, s.poolId), counts);
});

test('idempotency keys are claimed inside the batch: duplicates, conflicts and replays in one batch each get their own answer', async () => {
  const s = await shopWithTier(h, { capacity: 20 });
  const [q1, q2, q3, q4, q5] = await Promise.all([1, 1, 1, 2, 1].map((q) => quote(s, q)));
  const [kDup, kConflict, kReplay, kMissing, kFresh] = Array.from({ length: 5 }, () => key());
  const earlierConflict = must(await reserve(s, q2!, kConflict)(), 201);
  const earlierReplay = await reserve(s, q4!, kReplay)();
  assert.equal(earlierReplay.status, 201);
  const warmup = await quote(s, 1);
  const results = await asOneBatch(s.poolId, [
    reserve(s, warmup),
    reserve(s, q1!, kDup),
    reserve(s, q1!, kDup), // the same key and request twice in one batch: the first to arrive claims it, the other is in flight
    reserve(s, q3!, kConflict), // a key already used for another request
    reserve(s, q4!, kReplay), // a key already done: replayed from the batch, holding nothing more
    reserve(s, 'quo_doesnotexist', kMissing), // a refusal, stored under its key with the batch
    reserve(s, q5!, kFresh),
  ]);
  const [, dupA, dupB, conflict, replay, missing, fresh] = results;
  // Concurrent requests reach the queue in any order: whichever came first holds, the other is told it is in flight.
  const [dup1, dup2] = dupA!.status === 201 ? [dupA, dupB] : [dupB, dupA];
  assert.equal(dup1!.status, 201);
  assert.equal(dup2!.status, 409);
  assert.equal(dup2!.body.code, 'idempotency_in_flight');
  assert.equal(dup2!.headers.get('retry-after'), '1');
  assert.equal(conflict!.status, 422);
  assert.equal(conflict!.body.code, 'idempotency_conflict');
  assert.equal(replay!.status, 201);
  assert.equal(replay!.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(replay!.body, earlierReplay.body);
  assert.equal(missing!.status, 404);
  assert.equal(fresh!.status, 201);
  assert.equal(fresh!.headers.get('idempotent-replayed'), null);
  // Holds: the earlier two (1 + 2), the warm-up, q1 once, q5; the conflicting call reserved nothing.
  const counts = await assertInvariant(h.db, s.poolId);
  assert.equal(counts.held, 1 + 2 + 1 + 1 + 1);
  const q3Holds = await h.db.execute<{ n: number }>('select count(*)::int as n from reservations where quote_id = ?', [
    q3,
  ]);
  assert.equal(q3Holds[0]!.n, 0);
  assert.ok(earlierConflict.reservation.id);
  // Every claim made in the batch committed with its outcome: nothing is left in flight.
  const keys = [kDup, kConflict, kReplay, kMissing, kFresh].map((k) => k!['idempotency-key']!);
  const inFlight = await h.db.execute<{ n: number }>(
    `select count(*)::int as n from idempotency_keys where key in (?, ?, ?, ?, ?) and state <> 'done'`,
    keys,
  );
  assert.equal(inFlight[0]!.n, 0);
  // Afterwards each key replays its own outcome: the duplicate's key answers the first call's hold, the refusal its
  // 404.
  const dupAgain = await reserve(s, q1!, kDup)();
  assert.equal(dupAgain.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(dupAgain.body, dup1!.body);
  const missingAgain = await reserve(s, 'quo_doesnotexist', kMissing)();
  assert.equal(missingAgain.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual([missingAgain.status, missingAgain.body], [404, missing!.body]);
  assert.deepEqual(await assertInvariant(h.db, s.poolId), counts);
});

test('a batch its pool cannot serve whole re-runs with the pool locked and allots in arrival order', async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const first = await quote(s, 1);
  const quotes = await Promise.all([1, 1, 1, 1].map((q) => quote(s, q)));
  const results = await asOneBatch(s.poolId, [reserve(s, first), ...quotes.map((q) => reserve(s, q))]);
  assert.deepEqual(
    results.map((r) => r.status).sort((a, b) => a - b),
    [201, 201, 201, 409, 409],
  );
  assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 3, available: 0, held: 3, sold: 0 });
  // Sold out: a quote made before the last places went is refused with the live count.
  const late = results.find((r) => r.status === 409)!;
  assert.deepEqual(late.body.details, { available: 0, requested: 1, waitingList: true }); // the tier's list is open
});

test(`${verifies('SPEC-2.1-oversell-arbiter', 'CONTRACT-pool-invariant')}two server processes batching on one pool: mixed quantities, no oversell, invariant exact`, async () => {
  const env = {
    DATABASE_URL: h.dbUrl,
    SWEEP_INTERVAL_MS: '0',
    SANDBOX_DISPATCH_MS: '0',
    WEBHOOK_DISPATCH_MS: '0',
    RATE_LIMIT_PER_MINUTE: '100000',
  };
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < 2; i++) servers.push(await startServerProcess(env, 180_000));
    const s = await shopWithTier(h, { capacity: 60 });
    const quantities = Array.from({ length: 80 }, (_, i) => 1 + (i % 3));
    const quotes: string[] = [];
    for (let i = 0; i < quantities.length; i += 20)
      quotes.push(...(await Promise.all(quantities.slice(i, i + 20).map((q) => quote(s, q)))));
    const clients = servers.map((p) => restClient(p.url, s.apiKey));
    const results = await Promise.all(
      quotes.map((quoteId, i) =>
        clients[i % 2]!.post('/v1/ticketing/reservations', { quoteId }, { 'idempotency-key': randomUUID() }),
      ),
    );
    const granted = results.filter((r) => r.status === 201);
    assert.ok(
      results.every((r) => r.status === 201 || (r.status === 409 && r.body.code === 'sold_out')),
      JSON.stringify(results.map((r) => r.status)),
    );
    const counts = await assertInvariant(h.db, s.poolId);
    assert.equal(
      counts.held,
      granted.reduce((n, r) => n + r.body.reservation.quantity, 0),
    );
    // 80 calls asking for 159 places on 60: the pool ends with fewer places than any refused call asked for.
    for (const r of results.filter((x) => x.status === 409)) assert.ok(r.body.details.requested > counts.available);
    assert.ok(counts.available < 3);

    // One key sent at once to both processes, ten times: one hold; every answer is that hold (replayed) or in flight.
    const t = await shopWithTier(h, { capacity: 5 });
    const once = await quote(t, 1);
    const k = { 'idempotency-key': randomUUID() };
    const tClients = servers.map((p) => restClient(p.url, t.apiKey));
    const same = await Promise.all(
      Array.from({ length: 10 }, (_, i) => tClients[i % 2]!.post('/v1/ticketing/reservations', { quoteId: once }, k)),
    );
    assert.ok(
      same.every((r) => r.status === 201 || (r.status === 409 && r.body.code === 'idempotency_in_flight')),
      JSON.stringify(same.map((r) => r.status)),
    );
    const holds = new Set(same.filter((r) => r.status === 201).map((r) => r.body.reservation.id));
    assert.ok(holds.size <= 1);
    const after = must(await tClients[0]!.post('/v1/ticketing/reservations', { quoteId: once }, k), 201);
    if (holds.size) assert.ok(holds.has(after.reservation.id));
    assert.deepEqual(await assertInvariant(h.db, t.poolId), { capacity: 5, available: 4, held: 1, sold: 0 });
  } finally {
    await Promise.all(servers.map((p) => p.stop()));
  }
});

test(`${verifies('SPEC-4.1-pools-listing')}list_pools pages with a cursor (spec shape \`{ pools }\` plus \`nextCursor\`), every pool exactly once`, async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  for (let i = 0; i < 6; i++)
    must(
      await s.api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: s.eventId, capacity: 10 + i }),
      201,
    );
  const all = must(await s.api.get(`/v1/integration/pools?merchantId=${s.shopId}`), 200);
  assert.equal(all.pools.length, 7);
  assert.equal(all.nextCursor, undefined);
  const seen: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = must(
      await s.api.get(`/v1/integration/pools?merchantId=${s.shopId}&limit=3${cursor ? `&cursor=${cursor}` : ''}`),
      200,
    );
    assert.deepEqual(Object.keys(page).sort(), page.nextCursor ? ['nextCursor', 'pools'] : ['pools']);
    assert.ok(page.pools.length <= 3);
    seen.push(...page.pools.map((p: { id: string }) => p.id));
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  assert.equal(pages, 3);
  assert.deepEqual(
    seen,
    all.pools.map((p: { id: string }) => p.id),
  );
  assert.equal((await s.api.get(`/v1/integration/pools?merchantId=${s.shopId}&limit=0`)).status, 400);
  assert.equal((await s.api.get(`/v1/integration/pools?merchantId=${s.shopId}&limit=1001`)).status, 400);
});
