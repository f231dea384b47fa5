/**
 * The world bench/reserve.ts measures in: an embedded PostgreSQL with one merchant, the first server process, a raw
 * connection pool, and the set-up helpers every part uses (fresh pools and tiers, bulk quotes, a reserve over HTTP and
 * the same reserve as raw SQL); at the end, the check of `availableCount + held + sold = capacity` for every pool used.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { bootstrapOrganization } from '../src/domain/merchants/merchants.ts';
import { Database } from '../src/storage/database.ts';
import { startEmbeddedPostgres } from '../src/storage/embedded-postgres.ts';
import { newId } from '../src/storage/ids.ts';
import { restClient } from '../test/support/rest.ts';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.ts';
import { benchClient } from './http-client.ts';
import { CPU_PROF, LEVELS, ROUTING_ENV, SERVER_ARGS } from './reserve-options.ts';

/** The environment of every server process the bench starts. */
export const BASE_ENV = {
  RATE_LIMIT_PER_MINUTE: '100000000',
  SWEEP_INTERVAL_MS: '0',
  WEBHOOK_DISPATCH_MS: '0',
  SANDBOX_DISPATCH_MS: '0',
  LOG_LEVEL: 'error',
  ...ROUTING_ENV,
};

/** A lean HTTP client (bench/http-client.ts). */
export type LeanClient = ReturnType<typeof benchClient>;

/**
 * Starts the database, the merchant and the first server process; `close()` stops every server in `servers` (parts
 * add theirs), the clients and the database.
 */
export async function openBench() {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
  chmodSync(dir, 0o755);
  const server = await startEmbeddedPostgres(dir);
  const dbUrl = await server.createDatabase('bench');
  const db = await Database.open(dbUrl);
  await db.migrate();
  const merchant = await db.transaction((em) =>
    bootstrapOrganization(
      em,
      {
        organization: 'Bench',
        email: 'bench@example.test',
        shop: 'Bench Hall',
        scopes: ['merchant:read', 'merchant:write', 'merchant:admin'],
      },
      new Date(),
    ),
  );
  // The throughput runs measure the path, not the admission bound (which the overload run measures).
  const profile: Record<string, string> = CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROF}` } : {};
  const servers: ServerProcess[] = [
    await startServerProcess(
      { ...BASE_ENV, ...profile, DATABASE_URL: dbUrl, RESERVE_MAX_WAIT_MS: '60000' },
      180_000,
      SERVER_ARGS,
    ),
  ];
  const raw = new pg.Pool({ connectionString: dbUrl, max: Math.max(...LEVELS, 64) });
  const pools: string[] = [];
  const clients: ReturnType<typeof benchClient>[] = [];
  /** A lean client (bench/http-client.ts) for the measured calls; set-up calls go through the tests' client. */
  const leanClient = (url: string) => {
    const c = benchClient(url, merchant.apiKey);
    clients.push(c);
    return c;
  };
  return {
    dbUrl,
    /** PostgreSQL's data directory, whose processes' CPU the parts read. */
    clusterDir: server.clusterDir,
    merchant,
    profile,
    servers,
    raw,
    pools,
    leanClient,
    async close(): Promise<void> {
      for (const c of clients) c.close();
      await raw.end();
      await Promise.all(servers.map((s) => s.stop()));
      await db.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What `openBench` started. */
export type OpenBench = Awaited<ReturnType<typeof openBench>>;

/** Adds the set-up helpers: an event of the merchant's shop, pools with a template quote, bulk quotes, reserves. */
export async function benchTools(b: OpenBench) {
  const { servers, merchant, raw, pools, leanClient } = b;
  const api = restClient(servers[0]!.url, merchant.apiKey);
  const event = (
    await api.post('/v1/integration/events', {
      merchantId: merchant.shopId,
      title: 'Bench night',
      startsAt: '2030-01-01T20:00:00Z',
    })
  ).body;
  /** A fresh pool and tier of `capacity` places, with one quote made over HTTP as the template for bulk quotes. */
  const newPool = async (capacity: number) => {
    const pool = (await api.post('/v1/integration/pools', { merchantId: merchant.shopId, eventId: event.id, capacity }))
      .body;
    const tier = (
      await api.post('/v1/integration/tiers', {
        eventId: event.id,
        poolId: pool.id,
        name: `GA ${pools.length}`,
        priceMinor: 4000,
      })
    ).body;
    const template = (await api.post('/v1/ticketing/quotes', { tierId: tier.id, quantity: 1 })).body.quoteId as string;
    pools.push(pool.id);
    return { poolId: pool.id as string, tierId: tier.id as string, template };
  };
  const columns = (
    await raw.query(
      `select column_name from information_schema.columns where table_name = 'quotes' and table_schema = current_schema()`,
    )
  ).rows.map((r: { column_name: string }) => r.column_name);
  /** `n` fresh quotes copied from a template quote in one statement (quotes are not what is measured). */
  const quotes = async (template: string, n: number): Promise<string[]> => {
    const ids = Array.from({ length: n }, () => newId('quote'));
    const select = columns.map((c) =>
      c === 'id'
        ? 'u.id'
        : c === 'reservation_id'
          ? 'null'
          : c === 'expires_at'
            ? `now() + interval '15 minutes'`
            : c === 'created_at'
              ? 'now()'
              : `t.${c}`,
    );
    await raw.query(
      `insert into quotes (${columns.join(', ')}) select ${select.join(', ')} from unnest($1::text[]) as u(id), quotes t where t.id = $2`,
      [ids, template],
    );
    return ids;
  };
  const lean = leanClient(servers[0]!.url);
  const reserveOver = (client: ReturnType<typeof benchClient>, quoteId: string, key = randomUUID()) =>
    client.post('/v1/ticketing/reservations', { quoteId }, { 'idempotency-key': key });
  const rawReserve = async (
    poolId: string,
    template: {
      shop_id: string;
      organization_id: string;
      event_id: string;
      tier_id: string;
      total_minor: number;
      currency: string;
      owner_key: string;
    },
  ) => {
    const client = await raw.connect();
    try {
      const now = new Date();
      await client.query('begin');
      const taken = await client.query(
        'update pools set available_count = available_count - 1 where id = $1 and available_count >= 1 returning available_count',
        [poolId],
      );
      if (!taken.rowCount) {
        await client.query('rollback');
        return false;
      }
      const t = template;
      const q = await client.query(
        `insert into quotes (id, shop_id, organization_id, event_id, tier_id, pool_id, quantity, unit_price_minor, fees_minor, total_minor, currency, owner_key, expires_at, created_at)
           values ($1, $2, $3, $4, $5, $6, 1, $7, 0, $7, $8, $9, $10, $10) returning id`,
        [
          newId('quote'),
          t.shop_id,
          t.organization_id,
          t.event_id,
          t.tier_id,
          poolId,
          t.total_minor,
          t.currency,
          t.owner_key,
          now,
        ],
      );
      await client.query(
        `insert into reservations (id, shop_id, organization_id, event_id, tier_id, pool_id, quote_id, quantity, unit_price_minor, fees_minor, total_minor, currency, state, hold_expires_at, expires_at, owner_key, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, 1, $8, 0, $8, $9, 'held', $10, $10, $11, $12, $12)`,
        [
          newId('reservation'),
          t.shop_id,
          t.organization_id,
          t.event_id,
          t.tier_id,
          poolId,
          q.rows[0].id,
          t.total_minor,
          t.currency,
          new Date(now.getTime() + 600_000),
          t.owner_key,
          now,
        ],
      );
      await client.query('commit');
      return true;
    } finally {
      client.release();
    }
  };

  return { ...b, newPool, quotes, lean, reserveOver, rawReserve };
}

/** The bench with its helpers, as every part takes it. */
export type Bench = Awaited<ReturnType<typeof benchTools>>;

/** Prints the invariant for every pool used; false when one is broken. */
export async function checkInvariant({ raw, pools }: Bench): Promise<boolean> {
  let broken = false;
  console.log('\ninvariant (availableCount + held + sold = capacity, available ≥ 0):');
  for (const poolId of pools) {
    const [inv] = (
      await raw.query(
        `select p.capacity, p.available_count,
                  coalesce(sum(r.quantity) filter (where r.state in ('held','confirming')), 0) as held,
                  coalesce(sum(r.quantity) filter (where r.state = 'completed'), 0) as sold
             from pools p left join reservations r on r.pool_id = p.id where p.id = $1 group by p.id`,
        [poolId],
      )
    ).rows;
    const ok =
      Number(inv.available_count) >= 0 &&
      Number(inv.available_count) + Number(inv.held) + Number(inv.sold) === Number(inv.capacity);
    if (!ok) broken = true;
    console.log(
      `  ${poolId}: capacity ${inv.capacity}, available ${inv.available_count}, held ${inv.held}, sold ${inv.sold} → ${ok ? 'intact' : 'BROKEN'}`,
    );
  }
  return !broken;
}
