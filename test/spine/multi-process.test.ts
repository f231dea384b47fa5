/**
 * Zero oversell across processes: 200 concurrent reserve calls against two separate server processes
 * on one PostgreSQL for a 50-place pool; then expiry, driven by an injected clock, returns every place once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { Database } from '../../src/storage/database.ts';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { must, shopWithTier, startSpineHarness } from '../support/spine.ts';
import { serverEnvFor } from '../support/database.ts';

let h: Harness;
let servers: ServerProcess[] = [];
before(async () => {
  h = await startSpineHarness();
  const env = {
    DATABASE_URL: h.dbUrl,
    SWEEP_INTERVAL_MS: '0',
    SANDBOX_DISPATCH_MS: '0',
    WEBHOOK_DISPATCH_MS: '0',
    RATE_LIMIT_PER_MINUTE: '100000',
  };
  servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
});
after(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await h?.close();
});

test('200 concurrent reserves from two server processes take exactly the 50 places, then expiry returns each once', async () => {
  const shop = await shopWithTier(h, { capacity: 50, holdMinutes: 10 });
  const quotes: string[] = [];
  for (let batch = 0; batch < 10; batch++) {
    const made = await Promise.all(
      Array.from({ length: 20 }, () => shop.api.post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 })),
    );
    quotes.push(...made.map((r) => must(r, 201).quoteId));
  }
  const clients = servers.map((s) => restClient(s.url, shop.apiKey));
  const reserve = (quoteId: string, i: number) =>
    clients[i % 2]!.post('/v1/ticketing/reservations', { quoteId }, { 'idempotency-key': randomUUID() });
  // One hold from each process first (which process wins the race for the rest depends on the machine's load: one
  // process's batches can take every place before the other's first batch commits), then the other 198 at once.
  const first = [await reserve(quotes[0]!, 0), await reserve(quotes[1]!, 1)];
  assert.deepEqual(
    first.map((r) => r.status),
    [201, 201],
    'both processes grant holds',
  );
  const results = [...first, ...(await Promise.all(quotes.slice(2).map((quoteId, i) => reserve(quoteId, i))))];
  const held = results.filter((r) => r.status === 201);
  const soldOut = results.filter((r) => r.status === 409 && r.body.code === 'sold_out');
  assert.equal(held.length, 50, `statuses: ${JSON.stringify(results.map((r) => r.status))}`);
  assert.equal(soldOut.length, 150);
  assert.equal(new Set(held.map((r) => r.body.reservation.id)).size, 50);
  const counts = await assertInvariant(h.db, shop.poolId);
  assert.deepEqual(counts, { capacity: 50, available: 0, held: 50, sold: 0 });

  // Expiry with an injected clock, swept by two independent app instances racing on the same database.
  const sweepers = await Promise.all(
    [0, 1].map(async () => {
      const db = await Database.open(h.dbUrl);
      const clock = new ManualClock(new Date(Date.now() + 11 * 60_000));
      const config = loadConfig({
        PORT: '0',
        LOG_LEVEL: 'silent',
        ...serverEnvFor(h.dbUrl),
        SWEEP_INTERVAL_MS: '0',
        SANDBOX_DISPATCH_MS: '0',
        WEBHOOK_DISPATCH_MS: '0',
      });
      const app = await createApp(config, db, { clock, log: pino({ level: 'silent' }) });
      return { app, db, clock };
    }),
  );
  try {
    const reports = await Promise.all(sweepers.map((s) => s.app.sweeper.sweepExpiredHolds(s.clock.now(), 20)));
    const more = await Promise.all(sweepers.map((s) => s.app.sweeper.sweepExpiredHolds(s.clock.now(), 100)));
    const released = [...reports, ...more].flatMap((r) => r.released);
    assert.equal(released.length, 50, 'each expired hold released once');
    assert.equal(new Set(released).size, 50);
    const again = await sweepers[0]!.app.sweeper.sweepExpiredHolds(sweepers[0]!.clock.now());
    assert.deepEqual(again.released, []);
  } finally {
    for (const s of sweepers) {
      await s.app.close();
      await s.db.close();
    }
  }
  assert.deepEqual(await assertInvariant(h.db, shop.poolId), { capacity: 50, available: 50, held: 0, sold: 0 });
  const pools = must(await shop.api.get(`/v1/integration/pools?merchantId=${shop.shopId}`), 200);
  assert.equal(pools.pools.find((p: { id: string }) => p.id === shop.poolId).availableCount, 50);
});
