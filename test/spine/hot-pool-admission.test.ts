/**
 * The hot-pool batcher's admission control (src/domain/purchase/reserve-batcher.ts), over real HTTP: a reserve that
 * would wait too long is refused at once with when to come back (hot-pool.test.ts has the batches themselves).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { reserveBatcher } from '../../src/domain/purchase/reserve-batcher.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient, type RestResponse } from '../support/rest.ts';
import { SURFACES } from '../support/surfaces.ts';
import { lockPool, until } from '../support/batching.ts';
import { key, must, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';

async function quote(s: Shop, quantity: number): Promise<string> {
  return must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity }), 201).quoteId;
}

test('admission control: a reserve that would wait too long is refused at once (429, Retry-After), not stored', async () => {
  const strict = await startSpineHarness({ RESERVE_BATCHES_IN_FLIGHT: '1', RESERVE_MAX_WAIT_MS: '1' });
  try {
    const s = await shopWithTier(strict, { capacity: 10 });
    const api = s.api;
    const b = reserveBatcher(strict.app.services);
    must(await api.post('/v1/ticketing/reservations', { quoteId: await quote(s, 1) }, key()), 201); // a first batch measures the batch time
    const [q1, q] = [await quote(s, 1), await quote(s, 2)];
    const { release, done: locker } = await lockPool(strict.db, s.poolId);
    const k = key();
    try {
      const blocked = api.post('/v1/ticketing/reservations', { quoteId: q1 }, key());
      await until(() => b.inFlight === 1, 'the blocked batch');
      const refused = await api.post('/v1/ticketing/reservations', { quoteId: q }, k);
      assert.equal(refused.status, 429);
      assert.equal(refused.body.code, 'rate_limited');
      assert.equal(refused.body.retryAfter, 1);
      assert.equal(refused.headers.get('retry-after'), '1');
      // Refused before Koa (admitBeforeKoa), yet answered like any route: the security and cache headers, and counted
      // in the metrics under the route's label. Another spelling of the path is refused by its route, through Koa,
      // and a call without a credential by admitBeforeRouting, after its address is charged: the same answer each way,
      // header for header (the date and the connection's aside).
      assert.equal(refused.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(refused.headers.get('cache-control'), 'no-store');
      const slash = await api.post('/v1/ticketing/reservations/', { quoteId: q }, key());
      assert.deepEqual([slash.status, slash.body.code, slash.headers.get('retry-after')], [429, 'rate_limited', '1']);
      const anonymous = await restClient(strict.url).post('/v1/ticketing/reservations', { quoteId: q }, key());
      const withQuery = await api.post('/v1/ticketing/reservations?lang=en', { quoteId: q }, key());
      // Each answer has its own request id; the rest is the same header for header.
      const headersOf = (r: RestResponse) =>
        [...r.headers].filter(([name]) => !['date', 'connection', 'keep-alive', 'x-request-id'].includes(name));
      for (const other of [refused, slash, anonymous, withQuery]) assert.ok(other.headers.get('x-request-id'));
      for (const other of [slash, anonymous, withQuery]) {
        assert.deepEqual([other.status, other.body], [refused.status, refused.body]);
        assert.deepEqual(headersOf(other), headersOf(refused));
      }
      const metrics = await (await fetch(`${strict.url}/metrics`)).text();
      const counted = metrics
        .split('\n')
        .find((l) =>
          l.startsWith('tessera_http_requests_total{method="POST",route="/v1/ticketing/reservations",status="429"}'),
        );
      assert.equal(counted?.split(' ')[1], '4', counted);
      const timed = metrics
        .split('\n')
        .find((l) =>
          l.startsWith('tessera_http_request_duration_seconds_count{method="POST",route="/v1/ticketing/reservations"}'),
        );
      assert.ok(Number(timed?.split(' ')[1]) >= 4, timed);
      // MCP and A2A refuse the same way, in the orchestrator (REST refuses before routing, before the body is read).
      for (const surface of SURFACES.filter((x) => x.name !== 'rest')) {
        const { call, done } = await surface.connect(strict, s.apiKey);
        try {
          const out = await call('reserve', { quoteId: q }, { idempotencyKey: randomUUID() });
          assert.equal(out.ok ? 'held' : out.code, 'rate_limited', `${surface.name}: ${JSON.stringify(out)}`);
          assert.equal(out.ok ? undefined : out.error.retryAfter, 1, surface.name);
        } finally {
          await done();
        }
      }
      release();
      must(await blocked, 201);
    } finally {
      release();
      await locker;
    }
    // The refusal was not an outcome: the same key and quote now succeed.
    const retried = must(await api.post('/v1/ticketing/reservations', { quoteId: q }, k), 201);
    assert.equal(retried.reservation.quantity, 2);
    assert.ok(b.stats.refused >= 1);
    assert.deepEqual(await assertInvariant(strict.db, s.poolId), { capacity: 10, available: 6, held: 4, sold: 0 });
    // A call takes its place only once its body is read and its caller authenticated: one whose body is unreadable
    // (refused in the route) or whose input is invalid (refused in the orchestrator) holds none. More of each than one
    // batch admits (64) leave the next reserve admitted.
    for (let i = 0; i < 70; i++) {
      const unreadable = await api.post('/v1/ticketing/reservations', '{"quoteId": ', key());
      assert.equal(unreadable.status, 400, JSON.stringify(unreadable.body));
      const invalid = await api.post('/v1/ticketing/reservations', { quoteId: q, colour: 'red' }, key());
      assert.equal(invalid.body.code, 'unknown_field', JSON.stringify(invalid.body));
    }
    must(await api.post('/v1/ticketing/reservations', { quoteId: await quote(s, 1) }, key()), 201);
  } finally {
    await strict.close();
  }
});

test('admission control: callers refused at one moment are told return slots (1, 2, 3 … s), on every surface', async () => {
  // One full batch is 2 calls and the bound 1 ms: the process holds 2 calls at once, so each return window takes 2.
  const strict = await startSpineHarness({
    RESERVE_BATCHES_IN_FLIGHT: '1',
    RESERVE_BATCH_MAX: '2',
    RESERVE_MAX_WAIT_MS: '1',
  });
  try {
    const s = await shopWithTier(strict, { capacity: 10 });
    const b = reserveBatcher(strict.app.services);
    must(await s.api.post('/v1/ticketing/reservations', { quoteId: await quote(s, 1) }, key()), 201); // measures the batch time
    const [q1, q] = [await quote(s, 1), await quote(s, 1)];
    const { release, done: locker } = await lockPool(strict.db, s.poolId);
    try {
      const blocked = s.api.post('/v1/ticketing/reservations', { quoteId: q1 }, key());
      await until(() => b.inFlight === 1, 'the blocked batch');
      // The harness's clock stands still: every refusal below is at one moment, so they share the return windows.
      const told: number[] = [];
      for (let i = 0; i < 4; i++) {
        const refused = await s.api.post('/v1/ticketing/reservations', { quoteId: q }, key());
        assert.equal(refused.status, 429, JSON.stringify(refused.body));
        assert.equal(refused.headers.get('retry-after'), String(refused.body.retryAfter));
        told.push(refused.body.retryAfter);
      }
      const [mcp, a2a] = ['mcp in-memory', 'a2a'].map((name) => SURFACES.find((x) => x.name === name)!);
      const viaSurface = async (surface: typeof mcp) => {
        const { call, done } = await surface!.connect(strict, s.apiKey);
        try {
          const out = await call('reserve', { quoteId: q }, { idempotencyKey: randomUUID() });
          assert.equal(out.ok ? 'held' : out.code, 'rate_limited', `${surface!.name}: ${JSON.stringify(out)}`);
          return out.ok ? undefined : out.error.retryAfter;
        } finally {
          await done();
        }
      };
      told.push((await viaSurface(mcp))!);
      assert.deepEqual(told, [1, 1, 2, 2, 3], 'two a second, in the order refused, REST and MCP alike');
      // A second later the slots are where they were: one second from now is full, two has one place left.
      strict.clock.advance(1000);
      assert.equal(await viaSurface(a2a), 2);
      release();
      must(await blocked, 201);
    } finally {
      release();
      await locker;
    }
    assert.deepEqual(await assertInvariant(strict.db, s.poolId), { capacity: 10, available: 8, held: 2, sold: 0 });
  } finally {
    await strict.close();
  }
});
