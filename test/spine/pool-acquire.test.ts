/**
 * The pool deadlock class (docs/performance.md): code inside a transaction that takes a second pooled connection, while
 * every connection is held by such code, used to wait forever. The wait for a pooled connection is now bounded
 * (DATABASE_ACQUIRE_TIMEOUT_MS): the call fails with 503 `unavailable` and Retry-After, its transaction rolls back, and
 * the pool serves again. Both tests below hung before the bound. (The bound also limits opening a new connection, so it
 * is 5 s here: a busy machine may take a while to start a PostgreSQL backend.)
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { bootstrapOrganization, type BootstrapResult } from '../../src/domain/merchants/merchants.ts';
import { Database, SecondConnectionError, sql } from '../../src/storage/database.ts';
import { createTestDatabase } from '../support/database.ts';
import { restClient } from '../support/rest.ts';

let url: string;
before(async () => {
  url = await createTestDatabase();
  const db = await Database.open(url);
  await db.migrate();
  await db.close();
});

test('transactions that each take a second pooled connection fail with unavailable instead of waiting forever', async () => {
  const db = await Database.open(url, { poolMax: 2, acquireTimeoutMs: 5000 });
  try {
    let inside = 0;
    let bothInside!: () => void;
    const barrier = new Promise<void>((resolve) => (bothInside = resolve));
    let settled = 0;
    let bothSettled!: () => void;
    const bothDone = new Promise<void>((resolve) => (bothSettled = resolve));
    // Each transaction holds one of the two connections and then queries through the pool: the third connection never
    // comes. Neither rolls back (giving its connection back) until both waits have ended: otherwise, on a busy machine,
    // the first wait's rollback could hand its connection to the other wait before the other's own timer fired.
    const nested = () =>
      db.transaction(async (em) => {
        await sql(em, 'select 1');
        if (++inside === 2) bothInside();
        await barrier;
        try {
          return await db.execute('select 1');
        } finally {
          if (++settled === 2) bothSettled();
          await bothDone;
        }
      });
    const outcomes = await Promise.allSettled([nested(), nested()]);
    for (const o of outcomes) {
      assert.equal(o.status, 'rejected');
      const mapped = db.mapDatabaseError((o as PromiseRejectedResult).reason);
      assert.equal(mapped?.code, 'unavailable');
      assert.equal(mapped?.status, 503);
      assert.ok((mapped?.retryAfter ?? 0) >= 1);
    }
    // The rolled-back transactions gave their connections back: the pool serves again.
    assert.deepEqual(await db.execute('select 1 as one'), [{ one: 1 }]);
  } finally {
    await db.close();
  }
});

test('over REST a call that finds no free connection is answered 503 unavailable with Retry-After, then served once one is free', async () => {
  const clock = new ManualClock(new Date());
  const db = await Database.open(url, { poolMax: 1, acquireTimeoutMs: 5000 });
  let app: App | undefined;
  try {
    const config = loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      DATABASE_URL: url,
      WEBHOOK_DISPATCH_MS: '0',
      SWEEP_INTERVAL_MS: '0',
      SANDBOX_DISPATCH_MS: '0',
    });
    app = await createApp(config, db, { clock, log: pino({ level: 'silent' }) });
    const base = await app.listen();
    const m: BootstrapResult = await db.transaction((em) =>
      bootstrapOrganization(
        em,
        {
          organization: 'Pool',
          email: 'pool@example.test',
          shop: 'Pool Shop',
          scopes: ['merchant:read', 'merchant:write'],
        },
        clock.now(),
      ),
    );
    const api = restClient(base, m.apiKey);
    const list = () => api.get(`/v1/integration/pools?merchantId=${m.shopId}`);
    assert.equal((await list()).status, 200);

    // Hold the only connection, as a stuck transaction would.
    let release!: () => void;
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    const holder = db.transaction(async (em) => {
      await sql(em, 'select 1');
      holding();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await held;
    const refused = await list();
    assert.equal(refused.status, 503);
    assert.equal(refused.body.code, 'unavailable');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.ok(!JSON.stringify(refused.body).includes('timeout exceeded'), 'the driver message stays in the log');

    release();
    await holder;
    assert.equal((await list()).status, 200);
  } finally {
    await app?.close();
    await db.close();
  }
});

test('with guardPool (as in the test suite) a transaction that asks the pool for a second connection fails at once', async () => {
  const db = await Database.open(url, { guardPool: true });
  try {
    // Its own queries run on its connection.
    assert.deepEqual(await db.transaction(async (em) => sql(em, 'select 1 as one')), [{ one: 1 }]);
    await assert.rejects(
      db.transaction(async () => db.execute('select 1')),
      (err: unknown) =>
        err instanceof SecondConnectionError || (err as { cause?: unknown }).cause instanceof SecondConnectionError,
    );
    await assert.rejects(
      db.transaction(async () => db.transaction(async (em) => sql(em, 'select 1'))),
      (err: unknown) =>
        err instanceof SecondConnectionError || (err as { cause?: unknown }).cause instanceof SecondConnectionError,
    );
    // Outside a transaction, and once it has ended, the pool serves as usual.
    assert.deepEqual(await db.execute('select 1 as one'), [{ one: 1 }]);
  } finally {
    await db.close();
  }
});
