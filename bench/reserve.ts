/**
 * Reserve throughput and latency over HTTP on one hot pool, beside the raw ceiling measured in the same
 * run: the same conditional update plus hold insert issued straight to the same PostgreSQL.
 * Then one tool call over REST, MCP and A2A against the same server (bench/surfaces.ts), as ratios to REST.
 * Usage: npm run bench [-- --levels 1,8,32,64 --requests 600 --surface-calls 500]
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { bootstrapOrganization } from '../src/domain/merchants/merchants.ts';
import { Database } from '../src/storage/database.ts';
import { startEmbeddedPostgres } from '../src/storage/embedded-postgres.ts';
import { newId } from '../src/storage/ids.ts';
import { restClient } from '../test/support/rest.ts';
import { startServerProcess } from '../test/support/server-process.ts';
import { benchSurfaces } from './surfaces.ts';

const { values } = parseArgs({ options: { levels: { type: 'string' }, requests: { type: 'string' }, 'surface-calls': { type: 'string' } } });
const LEVELS = (values.levels ?? '1,8,32,64').split(',').map(Number);
const REQUESTS = Number(values.requests ?? 600);
const SURFACE_CALLS = Number(values['surface-calls'] ?? 500);

interface Run {
  throughput: number;
  p50: number;
  p99: number;
  ok: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** Runs `task(i)` for i in [0, n) with `concurrency` workers; returns throughput and latency percentiles (ms). */
async function drive(n: number, concurrency: number, task: (i: number) => Promise<boolean>): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  let ok = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t0 = performance.now();
        if (await task(i)) ok++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { throughput: n / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), ok };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
  chmodSync(dir, 0o755);
  const server = await startEmbeddedPostgres(dir);
  const dbUrl = await server.createDatabase('bench');
  const db = await Database.open(dbUrl);
  await db.migrate();
  const merchant = await db.transaction((em) =>
    bootstrapOrganization(em, { organization: 'Bench', email: 'bench@example.test', shop: 'Bench Hall', scopes: ['merchant:read', 'merchant:write', 'merchant:admin'] }, new Date()),
  );
  const app = await startServerProcess({
    DATABASE_URL: dbUrl,
    RATE_LIMIT_PER_MINUTE: '10000000',
    SWEEP_INTERVAL_MS: '0',
    WEBHOOK_DISPATCH_MS: '0',
    SANDBOX_DISPATCH_MS: '0',
    LOG_LEVEL: 'error',
  });
  const raw = new pg.Pool({ connectionString: dbUrl, max: Math.max(...LEVELS) });
  try {
    const api = restClient(app.url, merchant.apiKey);
    const total = REQUESTS * LEVELS.length * 2;
    const event = (await api.post('/v1/integration/events', { merchantId: merchant.shopId, title: 'Bench night', startsAt: '2030-01-01T20:00:00Z' })).body;
    const pool = (await api.post('/v1/integration/pools', { merchantId: merchant.shopId, eventId: event.id, capacity: total })).body;
    const tier = (await api.post('/v1/integration/tiers', { eventId: event.id, poolId: pool.id, name: 'GA', priceMinor: 4000 })).body;
    const quotes = async (n: number): Promise<string[]> => {
      const out: string[] = [];
      while (out.length < n) {
        const batch = await Promise.all(Array.from({ length: Math.min(50, n - out.length) }, () => api.post('/v1/ticketing/quotes', { tierId: tier.id, quantity: 1 })));
        out.push(...batch.map((r) => r.body.quoteId as string));
      }
      return out;
    };
    const [template] = (await raw.query('select * from quotes where id = $1', [(await quotes(1))[0]])).rows;

    console.log(`reserve on one hot pool, ${REQUESTS} requests per level (server: 1 process, PostgreSQL: embedded)`);
    console.log('concurrency | HTTP reserve/s | p50 ms | p99 ms | raw SQL/s | p50 ms | p99 ms | HTTP ÷ raw');
    const rows: string[] = [];
    for (const c of LEVELS) {
      const ids = await quotes(REQUESTS);
      const http = await drive(REQUESTS, c, async (i) => {
        const r = await api.post('/v1/ticketing/reservations', { quoteId: ids[i] }, { 'idempotency-key': randomUUID() });
        return r.status === 201;
      });
      const rawRun = await drive(REQUESTS, c, async () => {
        const client = await raw.connect();
        try {
          const now = new Date();
          await client.query('begin');
          const taken = await client.query('update pools set available_count = available_count - 1 where id = $1 and available_count >= 1 returning available_count', [pool.id]);
          if (!taken.rowCount) {
            await client.query('rollback');
            return false;
          }
          const q = await client.query(
            `insert into quotes (id, shop_id, organization_id, event_id, tier_id, pool_id, quantity, unit_price_minor, fees_minor, total_minor, currency, owner_key, expires_at, created_at)
             values ($1, $2, $3, $4, $5, $6, 1, $7, 0, $7, $8, $9, $10, $10) returning id`,
            [newId('quote'), template.shop_id, template.organization_id, template.event_id, template.tier_id, pool.id, template.total_minor, template.currency, template.owner_key, now],
          );
          await client.query(
            `insert into reservations (id, shop_id, organization_id, event_id, tier_id, pool_id, quote_id, quantity, unit_price_minor, fees_minor, total_minor, currency, state, hold_expires_at, expires_at, owner_key, created_at, updated_at)
             values ($1, $2, $3, $4, $5, $6, $7, 1, $8, 0, $8, $9, 'held', $10, $10, $11, $12, $12)`,
            [newId('reservation'), template.shop_id, template.organization_id, template.event_id, template.tier_id, pool.id, q.rows[0].id, template.total_minor, template.currency, new Date(now.getTime() + 600_000), template.owner_key, now],
          );
          await client.query('commit');
          return true;
        } finally {
          client.release();
        }
      });
      if (http.ok !== REQUESTS || rawRun.ok !== REQUESTS) throw new Error(`unexpected refusals: http ${http.ok}, raw ${rawRun.ok}`);
      const line = [
        String(c).padStart(11),
        http.throughput.toFixed(0).padStart(14),
        http.p50.toFixed(1).padStart(6),
        http.p99.toFixed(1).padStart(6),
        rawRun.throughput.toFixed(0).padStart(9),
        rawRun.p50.toFixed(1).padStart(6),
        rawRun.p99.toFixed(1).padStart(6),
        (http.throughput / rawRun.throughput).toFixed(2).padStart(10),
      ].join(' | ');
      rows.push(line);
      console.log(line);
    }
    const [inv] = (
      await raw.query(
        `select p.capacity, p.available_count,
                count(r.*) filter (where r.state in ('held','confirming')) as held,
                count(r.*) filter (where r.state = 'completed') as sold
           from pools p left join reservations r on r.pool_id = p.id where p.id = $1 group by p.id`,
        [pool.id],
      )
    ).rows;
    const sum = Number(inv.available_count) + Number(inv.held) + Number(inv.sold);
    const oversold = Number(inv.available_count) < 0 || sum !== Number(inv.capacity);
    console.log(`oversell check: capacity ${inv.capacity}, available ${inv.available_count}, held ${inv.held}, sold ${inv.sold} → ${oversold ? 'BROKEN' : 'intact'}`);
    if (oversold) process.exitCode = 1;
    await benchSurfaces(app.url, merchant.apiKey, merchant.shopId, SURFACE_CALLS);
  } finally {
    await raw.end();
    await app.stop();
    await db.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
