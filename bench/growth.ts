/**
 * Cost as the work grows (docs/performance.md, the growth table), each figure beside its small-size
 * baseline measured in the same run:
 *  - list_pools, first page and a middle page, for shops of 10, 1,000 and 10,000 pools;
 *  - reserve latency with no stored idempotency keys and with --keys (default 1,000,000);
 *  - reserve latency on a hot pool while the sweeper releases --holds (default 100,000) expired holds;
 *  - confirm latency with an empty webhook outbox and with --outbox (default 100,000) pending events.
 * Rows are bulk-inserted in SQL (what is measured is the service on top of them).
 * Usage: npm run bench:growth [-- --keys 1000000 --holds 100000 --outbox 100000]
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { bootstrapOrganization } from '../src/domain/merchants/merchants.ts';
import { Database } from '../src/storage/database.ts';
import { startEmbeddedPostgres } from '../src/storage/embedded-postgres.ts';
import { restClient } from '../test/support/rest.ts';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.ts';

const { values } = parseArgs({
  options: { keys: { type: 'string' }, holds: { type: 'string' }, outbox: { type: 'string' } },
});
const KEYS = Number(values.keys ?? 1_000_000);
const HOLDS = Number(values.holds ?? 100_000);
const OUTBOX = Number(values.outbox ?? 100_000);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};
const pad = (v: string | number, n: number) => String(v).padStart(n);

async function timed(n: number, concurrency: number, task: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  let left = n;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) {
        const t0 = performance.now();
        await task();
        ms.push(performance.now() - t0);
      }
    }),
  );
  return ms;
}

/** Copies row `id` of `table` `n` times with fresh ids (`prefix_<n>`), overriding some columns by SQL expression. */
async function copies(
  raw: pg.Pool,
  table: string,
  id: string,
  n: number,
  prefix: string,
  override: Record<string, string> = {},
): Promise<void> {
  const cols = (
    await raw.query(
      `select column_name from information_schema.columns where table_name = $1 and table_schema = current_schema()`,
      [table],
    )
  ).rows.map((r: { column_name: string }) => r.column_name as string);
  const select = cols.map((c) => (c === 'id' ? `'${prefix}_' || lpad(g::text, 9, '0')` : (override[c] ?? `t.${c}`)));
  for (let from = 1; from <= n; from += 50_000) {
    const to = Math.min(n, from + 49_999);
    await raw.query(
      `insert into ${table} (${cols.join(', ')}) select ${select.join(', ')} from generate_series($2::int, $3::int) g, ${table} t where t.id = $1`,
      [id, from, to],
    );
  }
}

async function main(): Promise<void> {
  const began = performance.now();
  const load0 = loadavg()[0]!;
  const dir = mkdtempSync(join(tmpdir(), 'tessera-growth-'));
  chmodSync(dir, 0o755);
  const server = await startEmbeddedPostgres(dir);
  const dbUrl = await server.createDatabase('growth');
  const db = await Database.open(dbUrl);
  await db.migrate();
  const env = {
    DATABASE_URL: dbUrl,
    RATE_LIMIT_PER_MINUTE: '100000000',
    SWEEP_INTERVAL_MS: '0',
    WEBHOOK_DISPATCH_MS: '0',
    SANDBOX_DISPATCH_MS: '0',
    LOG_LEVEL: 'error',
    RESERVE_MAX_WAIT_MS: '60000',
  };
  const servers: ServerProcess[] = [await startServerProcess(env, 180_000)];
  const raw = new pg.Pool({ connectionString: dbUrl, max: 8 });
  try {
    const m = await db.transaction((em) =>
      bootstrapOrganization(
        em,
        {
          organization: 'Growth',
          email: 'growth@example.test',
          shop: 'Growth Hall',
          scopes: ['merchant:read', 'merchant:write', 'merchant:admin'],
        },
        new Date(),
      ),
    );
    const api = restClient(servers[0]!.url, m.apiKey);
    const ok = async (res: Promise<{ status: number; body: any }>, status: number) => {
      const r = await res;
      if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body;
    };
    const shopWithPools = async (name: string, pools: number) => {
      const shop = await ok(
        api.post('/v1/integration/shops', { name, currency: 'EUR', feePerTicketMinor: 0, holdMinutes: 10 }),
        201,
      );
      const event = await ok(
        api.post('/v1/integration/events', { merchantId: shop.id, title: name, startsAt: '2030-01-01T20:00:00Z' }),
        201,
      );
      const pool = await ok(
        api.post('/v1/integration/pools', { merchantId: shop.id, eventId: event.id, capacity: 1_000_000 }),
        201,
      );
      const tier = await ok(
        api.post('/v1/integration/tiers', { eventId: event.id, poolId: pool.id, name: 'GA', priceMinor: 4000 }),
        201,
      );
      if (pools > 1) await copies(raw, 'pools', pool.id, pools - 1, `pool_${name.replace(/\W/g, '')}`);
      return { shop, event, pool, tier };
    };
    const reserveOnce = async (tierId: string) => {
      const q = await ok(api.post('/v1/ticketing/quotes', { tierId, quantity: 1 }), 201);
      return ok(
        api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, { 'idempotency-key': randomUUID() }),
        201,
      );
    };

    // list_pools
    console.log('\ngrowth table (median and p99 of the calls; ratio against the smallest size in this run)');
    console.log('what | size | p50 ms | p99 ms | p50 ÷ baseline');
    let base = 0;
    for (const n of [10, 1_000, 10_000]) {
      const { shop } = await shopWithPools(`Shop ${n}`, n);
      const ids = (await raw.query('select id from pools where shop_id = $1 order by id', [shop.id])).rows.map(
        (r: { id: string }) => r.id,
      );
      const middle = ids[Math.floor(ids.length / 2)]!;
      const first = await timed(30, 1, () => ok(api.get(`/v1/integration/pools?merchantId=${shop.id}`), 200));
      const deep = await timed(30, 1, () =>
        ok(api.get(`/v1/integration/pools?merchantId=${shop.id}&cursor=${middle}`), 200),
      );
      if (n === 10) base = pct(first, 50);
      console.log(
        `list_pools, first page of 100 | ${pad(n, 6)} pools | ${pad(pct(first, 50).toFixed(1), 6)} | ${pad(pct(first, 99).toFixed(1), 6)} | ${(pct(first, 50) / base).toFixed(2)}`,
      );
      console.log(
        `list_pools, middle page       | ${pad(n, 6)} pools | ${pad(pct(deep, 50).toFixed(1), 6)} | ${pad(pct(deep, 99).toFixed(1), 6)} | ${(pct(deep, 50) / base).toFixed(2)}`,
      );
    }

    // Idempotency keys
    const hot = await shopWithPools('Hot', 1);
    const before = await timed(100, 1, () => reserveOnce(hot.tier.id));
    const t0 = performance.now();
    await raw.query(
      `insert into idempotency_keys (scope, key, request_hash, state, status, response, created_at)
       select 'org:bench' || (g % 1000), md5(g::text), md5(g::text), 'done', 201, '{}'::jsonb, now() - (g % 86000) * interval '1 second' from generate_series(1, $1::int) g`,
      [KEYS],
    );
    await raw.query('analyze idempotency_keys');
    const loadMs = performance.now() - t0;
    const after = await timed(100, 1, () => reserveOnce(hot.tier.id));
    console.log(
      `quote + reserve, 0 idempotency keys        | ${pad(0, 7)} | ${pad(pct(before, 50).toFixed(1), 6)} | ${pad(pct(before, 99).toFixed(1), 6)} | 1.00`,
    );
    console.log(
      `quote + reserve, stored idempotency keys   | ${pad(KEYS, 7)} | ${pad(pct(after, 50).toFixed(1), 6)} | ${pad(pct(after, 99).toFixed(1), 6)} | ${(pct(after, 50) / pct(before, 50)).toFixed(2)}   (keys loaded in ${(loadMs / 1000).toFixed(0)} s)`,
    );

    // Sweeper: HOLDS expired holds on another pool, released by a sweeping process while reserves run on the hot pool.
    const swept = await shopWithPools('Swept', 1);
    const seed = await reserveOnce(swept.tier.id);
    await copies(raw, 'quotes', seed.reservation.quoteId, HOLDS, 'quo_bench', {
      reservation_id: `'rsv_bench_' || lpad(g::text, 9, '0')`,
    });
    await copies(raw, 'reservations', seed.reservation.id, HOLDS, 'rsv_bench', {
      quote_id: `'quo_bench_' || lpad(g::text, 9, '0')`,
      hold_expires_at: `now() - interval '1 minute'`,
      expires_at: `now() - interval '1 minute'`,
    });
    await raw.query('update pools set available_count = available_count - $2 where id = $1', [swept.pool.id, HOLDS]);
    const quiet = await timed(200, 8, () => reserveOnce(hot.tier.id));
    const sweeper = await startServerProcess({ ...env, SWEEP_INTERVAL_MS: '20' }, 180_000);
    servers.push(sweeper);
    const sweepStart = performance.now();
    const during: number[] = [];
    const due = async () =>
      Number(
        (
          await raw.query(
            `select count(*) as n from reservations where pool_id = $1 and state = 'held' and expires_at <= now()`,
            [swept.pool.id],
          )
        ).rows[0].n,
      );
    let left = await due();
    while (left > 0 && performance.now() - sweepStart < 600_000) {
      during.push(...(await timed(64, 8, () => reserveOnce(hot.tier.id))));
      left = await due();
    }
    const sweepS = (performance.now() - sweepStart) / 1000;
    console.log(
      `quote + reserve (8 clients), no sweep      |         | ${pad(pct(quiet, 50).toFixed(1), 6)} | ${pad(pct(quiet, 99).toFixed(1), 6)} | 1.00`,
    );
    console.log(
      `quote + reserve (8 clients), while sweeping | ${pad(HOLDS, 7)} | ${pad(pct(during, 50).toFixed(1), 6)} | ${pad(pct(during, 99).toFixed(1), 6)} | ${(pct(during, 50) / pct(quiet, 50)).toFixed(2)}   (swept in ${sweepS.toFixed(0)} s, ${(HOLDS / sweepS).toFixed(0)} holds/s; ${left} left)`,
    );
    await sweeper.stop();
    servers.pop();

    // Webhook outbox: confirm (which writes an event) with an empty outbox and with OUTBOX pending events.
    const buy = async () => {
      const r = await reserveOnce(hot.tier.id);
      await ok(
        api.post(
          `/v1/ticketing/reservations/${r.reservation.id}/confirm`,
          { paymentMethod: 'pm_sandbox_visa' },
          { 'idempotency-key': randomUUID() },
        ),
        200,
      );
    };
    await raw.query('update webhook_events set dispatched_at = now() where dispatched_at is null');
    const empty = await timed(60, 1, buy);
    const [ev] = (await raw.query('select id from webhook_events order by created_at desc limit 1')).rows;
    await copies(raw, 'webhook_events', ev.id, OUTBOX, 'whe_bench', {
      dispatched_at: 'null',
      created_at: `now() - interval '1 minute'`,
    });
    await raw.query('analyze webhook_events');
    const full = await timed(60, 1, buy);
    console.log(
      `quote + reserve + confirm, empty outbox    | ${pad(0, 7)} | ${pad(pct(empty, 50).toFixed(1), 6)} | ${pad(pct(empty, 99).toFixed(1), 6)} | 1.00`,
    );
    console.log(
      `quote + reserve + confirm, pending outbox  | ${pad(OUTBOX, 7)} | ${pad(pct(full, 50).toFixed(1), 6)} | ${pad(pct(full, 99).toFixed(1), 6)} | ${(pct(full, 50) / pct(empty, 50)).toFixed(2)}`,
    );

    const [inv] = (
      await raw.query(
        `select count(*) filter (where p.available_count < 0 or p.available_count + coalesce(r.held, 0) + coalesce(r.sold, 0) <> p.capacity) as broken
           from pools p left join (select pool_id, sum(quantity) filter (where state in ('held','confirming')) as held,
                                          sum(quantity) filter (where state = 'completed') as sold from reservations group by pool_id) r on r.pool_id = p.id
          where p.id = any($1)`,
        [[hot.pool.id, swept.pool.id]],
      )
    ).rows;
    console.log(`\ninvariant on the hot and swept pools: ${Number(inv.broken) === 0 ? 'intact' : 'BROKEN'}`);
    if (Number(inv.broken) !== 0) process.exitCode = 1;
    console.log(
      `load average (1 min) at start ${load0.toFixed(1)}, at end ${loadavg()[0]!.toFixed(1)}; ${((performance.now() - began) / 1000).toFixed(0)} s in all`,
    );
  } finally {
    await raw.end();
    await Promise.all(servers.map((s) => s.stop()));
    await db.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
