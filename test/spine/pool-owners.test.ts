/**
 * Reserve routing (RESERVE_ROUTING=owner; src/domain/purchase/pool-owners.ts), over real HTTP with two `tessera serve`
 * processes on one database: every reserve lands in the owner's batches (each process's `/metrics` counts the batches
 * it ran), with no oversell and the invariant exact; a key replays across processes; a forward without a valid MAC is
 * refused; and the owner killed (SIGKILL) with a batch in flight: every call is answered (its outcome or a retryable
 * 503), a retry with the same key gives the stored outcome, the invariant is exact, and the survivor owns. No timing:
 * the in-flight batch is made by holding the pool row locked from the test's own transaction.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient, type RestResponse } from '../support/rest.ts';
import { holdRows, poll } from '../support/row-lock.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { must, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';

let h: Harness;
/** Started in this order: `owner` is the older process, so it owns; `other` forwards to it. */
let owner: ServerProcess;
let other: ServerProcess;
before(async () => {
  h = await startSpineHarness();
  const env = {
    DATABASE_URL: h.dbUrl,
    RESERVE_ROUTING: 'owner',
    SWEEP_INTERVAL_MS: '0',
    SANDBOX_DISPATCH_MS: '0',
    WEBHOOK_DISPATCH_MS: '0',
    RATE_LIMIT_PER_MINUTE: '100000',
  };
  owner = await startServerProcess(env, 180_000);
  other = await startServerProcess(env, 180_000);
});
after(async () => {
  // The owner killed by the last test has exited already: only a running process is stopped.
  await Promise.all([owner, other].map((p) => (p && p.child.signalCode === null ? p.stop() : Promise.resolve())));
  await h?.close();
});

async function quote(s: Shop, quantity: number): Promise<string> {
  return must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity }), 201).quoteId;
}

/**
 * From a process's `/metrics`: the reserve batches it has run and the calls in them, the reserves it forwarded and
 * received, and whether it owns.
 */
async function batchesOf(p: ServerProcess) {
  const text = await (await fetch(new URL('/metrics', p.url))).text();
  const read = (name: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return Number(line?.slice(name.length + 1) ?? 0);
  };
  return {
    batches: read('tessera_reserve_batch_size_count'),
    calls: read('tessera_reserve_batch_size_sum'),
    forwarded: read('tessera_reserve_routed_total{direction="forwarded"}'),
    received: read('tessera_reserve_routed_total{direction="received"}'),
    owns: read('tessera_reserve_routing_owner'),
  };
}

const reserveAt = (p: ServerProcess, s: Shop, quoteId: string, idempotencyKey: string) =>
  restClient(p.url, s.apiKey).post('/v1/ticketing/reservations', { quoteId }, { 'idempotency-key': idempotencyKey });

test('two processes, one owner: all reserves in the owner’s batches, none oversold, keys replay anywhere', async () => {
  const s = await shopWithTier(h, { capacity: 60 });
  const quantities = Array.from({ length: 80 }, (_, i) => 1 + (i % 3));
  const another = await quote(s, 1); // for a key sent again with another request, below
  const quotes: string[] = [];
  for (let i = 0; i < quantities.length; i += 20)
    quotes.push(...(await Promise.all(quantities.slice(i, i + 20).map((q) => quote(s, q)))));
  const [ownerBefore, otherBefore] = await Promise.all([batchesOf(owner), batchesOf(other)]);
  const keys = quotes.map(() => randomUUID());
  const results = await Promise.all(quotes.map((q, i) => reserveAt(i % 2 ? other : owner, s, q, keys[i]!)));
  const [ownerAfter, otherAfter] = await Promise.all([batchesOf(owner), batchesOf(other)]);
  // The forwarding process ran no batch and forwarded its 40 calls; the owner's batches hold all 80.
  assert.deepEqual([otherAfter.batches, otherAfter.calls], [otherBefore.batches, otherBefore.calls]);
  assert.equal(ownerAfter.calls - ownerBefore.calls, 80);
  assert.equal(otherAfter.forwarded - otherBefore.forwarded, 40);
  assert.equal(ownerAfter.received - ownerBefore.received, 40);
  assert.deepEqual([ownerAfter.owns, otherAfter.owns], [1, 0]);
  assert.ok(
    results.every((r) => r.status === 201 || (r.status === 409 && r.body.code === 'sold_out')),
    JSON.stringify(results.map((r) => r.status)),
  );
  const counts = await assertInvariant(h.db, s.poolId);
  const granted = results.filter((r) => r.status === 201);
  assert.equal(
    counts.held,
    granted.reduce((n, r) => n + r.body.reservation.quantity, 0),
  );
  // A refusal forwarded is the owner's batch's, whole: its details, from either process.
  for (const r of results.filter((x) => x.status === 409)) assert.ok(r.body.details.requested > counts.available);

  // Each call's key replays the same answer from the other process (a hold and a refusal alike).
  for (const i of [0, 1, results.findIndex((r) => r.status === 409)]) {
    const again = await reserveAt(i % 2 ? owner : other, s, quotes[i]!, keys[i]!);
    assert.equal(again.status, results[i]!.status);
    assert.deepEqual(again.body, results[i]!.body);
  }
  // The same key with another quote is refused alike, wherever it is sent.
  const [a, b] = [await reserveAt(owner, s, another, keys[1]!), await reserveAt(other, s, another, keys[1]!)];
  assert.equal(a.status, 422);
  assert.deepEqual(b.body, a.body);
  assert.deepEqual(await assertInvariant(h.db, s.poolId), counts);
});

test('a forward without a valid MAC is refused, and reserves nothing', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const q = await quote(s, 1);
  const rows = await h.db.execute<{ address: string }>('select address from server_processes');
  assert.equal(rows.length, 2);
  const body = JSON.stringify({
    principal: { kind: 'staff', userId: 'usr_x' },
    quoteId: q,
    surface: 'rest',
  });
  for (const { address } of rows) {
    for (const mac of [undefined, `${Date.now()}.${'0'.repeat(64)}`, 'garbage']) {
      const res = await fetch(`http://${address}/internal/forward`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(mac ? { 'x-tessera-forward': mac } : {}) },
        body,
      });
      assert.equal(res.status, 401);
      assert.equal(await res.text(), '{}');
    }
  }
  assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 5, available: 5, held: 0, sold: 0 });
  must(await reserveAt(other, s, q, randomUUID()), 201); // the quote is still unused
});

test('the owner killed mid-batch: all answered, retries get the stored outcome, the survivor owns', async () => {
  const s = await shopWithTier(h, { capacity: 100 });
  const quotes = await Promise.all(Array.from({ length: 12 }, () => quote(s, 1)));
  const keys = quotes.map(() => randomUUID());
  // The pool row held: the owner's first batch waits on it with its calls in flight.
  const held = await holdRows(h.dbUrl, 'select id from pools where id = $1 for update', [s.poolId]);
  let results: RestResponse[];
  try {
    const calls = Promise.all(quotes.map((q, i) => reserveAt(other, s, q, keys[i]!)));
    assert.ok(await poll(async () => (await held.waiters()) >= 1), 'the owner’s batch waits on the pool row');
    owner.child.kill('SIGKILL');
    await once(owner.child, 'exit');
    await held.release(); // the dead owner's transaction never commits: PostgreSQL rolls it back
    results = await calls;
  } finally {
    await held.end();
  }
  for (const r of results) {
    assert.ok(r.status === 201 || r.status === 503, JSON.stringify(r.body));
    if (r.status === 503) {
      assert.equal(r.body.code, 'unavailable');
      assert.equal(r.body.retryAfter, 1);
      assert.equal(r.headers.get('retry-after'), '1');
    }
  }
  assert.ok(
    results.some((r) => r.status === 503),
    'the calls in the dead owner’s batch are answered 503',
  );
  const survivorBefore = await batchesOf(other);
  // Retried with the same keys: a 201 replays its hold; a 503's call runs now, in the survivor's own batches.
  const retried = await Promise.all(quotes.map((q, i) => reserveAt(other, s, q, keys[i]!)));
  retried.forEach((r, i) => {
    assert.equal(r.status, 201, JSON.stringify(r.body));
    if (results[i]!.status === 201) assert.deepEqual(r.body, results[i]!.body);
  });
  const survivor = await batchesOf(other);
  assert.ok(survivor.calls > survivorBefore.calls, 'the survivor batches its reserves itself');
  assert.equal(survivor.owns, 1);
  assert.equal(new Set(retried.map((r) => r.body.reservation.id)).size, 12);
  assert.deepEqual(await assertInvariant(h.db, s.poolId), { capacity: 100, available: 88, held: 12, sold: 0 });
});
