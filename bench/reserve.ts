/**
 * The hot pool, measured (docs/performance.md). Everything runs in this one process's run, so the figures
 * that count are ratios within it:
 *  1. reserve on ONE pool over HTTP vs the raw single-transaction ceiling (the same conditional update plus
 *     hold insert straight to the same PostgreSQL), at each concurrency, median of three repetitions;
 *  2. whole purchases per second (quote → reserve → confirm with the synchronous sandbox card);
 *  3. overload: ten times the clients, with admission control on and off;
 *  4. one, two and four server processes on the one database.
 * It ends by checking `availableCount + held + sold = capacity` for every pool it used.
 *  5. one read and one write tool call over REST, MCP (one session) and A2A against the same server
 * (bench/surfaces.ts),
 *     as ratios to REST, median of three repetitions (also alone: `npm run bench:surfaces`).
 *  6. the growth table (bench/growth.ts, run as a child process once the above has stopped). Usage: npm run bench [--
 * --levels 1,8,32,64 --requests 400 --per-client 40 --reps 3 --seconds 8 --bound MS --surface-calls 300
 *                          --flood-threads 1 --keys 1000000 --holds 100000 --outbox 100000 --parts 1,2,3,4,5,6 --cpu-prof DIR]
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { bootstrapOrganization } from '../src/domain/merchants/merchants.ts';
import { Database } from '../src/storage/database.ts';
import { startEmbeddedPostgres } from '../src/storage/embedded-postgres.ts';
import { newId } from '../src/storage/ids.ts';
import { restClient } from '../test/support/rest.ts';
import { benchClient } from './http-client.ts';
import { holdRows, poll } from '../test/support/row-lock.ts';
import { SERVER_NODE_ARGS, startServerProcess, type ServerProcess } from '../test/support/server-process.ts';
import { gcBetween, gcTotals, type GcTotals } from './gc.ts';
import { ownCpuMs, postgresCpuMs, processCpuMs } from './cpu.ts';
import { floodInThreads } from './flood.ts';
import { benchSurfaces } from './surfaces.ts';

const { values } = parseArgs({
  options: {
    levels: { type: 'string' },
    requests: { type: 'string' },
    'per-client': { type: 'string' },
    reps: { type: 'string' },
    seconds: { type: 'string' },
    quick: { type: 'boolean' },
    'surface-calls': { type: 'string' },
    parts: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'retry-ms': { type: 'string' },
    'flood-threads': { type: 'string' },
    bound: { type: 'string' },
    'server-node-flags': { type: 'string' },
    keys: { type: 'string' },
    holds: { type: 'string' },
    outbox: { type: 'string' },
  },
});
/**
 * Which parts run (default all): 1 hot pool, 2 purchases, 3 overload, 4 processes, 5 surfaces, 6 growth
 * (bench/growth.ts).
 */
const PARTS = new Set((values.parts ?? '1,2,3,4,5,6').split(',').map(Number));
/**
 * A directory for V8 CPU profiles of the server processes (the first, and the overload run's; written when they stop),
 * e.g. /tmp/prof.
 */
const CPU_PROF = values['cpu-prof'];
/** In the overload run, how long a refused client waits before retrying; unset: the Retry-After it was given. */
const RETRY_MS = values['retry-ms'] === undefined ? undefined : Number(values['retry-ms']);
/** The overload run's client threads (bench/flood.ts): its clients are dealt out over this many event loops. */
const FLOOD_THREADS = Number(values['flood-threads'] ?? 1);
if (!Number.isInteger(FLOOD_THREADS) || FLOOD_THREADS < 1)
  throw new Error('--flood-threads: a whole number, 1 or more');
/**
 * The overload run's admission bound (RESERVE_MAX_WAIT_MS of its server): `--bound`, else the p50 of a reserve at the
 * last level (64 clients) measured by part 1 in the same run, the latency admitted calls are to keep under the flood;
 * 50 ms when part 1 did not run.
 */
const BOUND_MS = values.bound === undefined ? undefined : Number(values.bound);
const DEFAULT_BOUND_MS = 50;
/**
 * Node.js flags for every server process the bench starts, after the server's own (`--server-node-flags=--flag`, with
 * `=`; several quoted and space-separated): V8's collector settings, which NODE_OPTIONS does not accept, measured on
 * the same bench.
 */
const SERVER_NODE_FLAGS = (values['server-node-flags'] ?? '').split(/\s+/).filter(Boolean);
if (SERVER_NODE_FLAGS.some((f) => !f.startsWith('--')))
  throw new Error('--server-node-flags: Node.js flags only, each starting with --');
/**
 * The server's own flags, then the bench's (the last of a flag wins: `--min-semi-space-size=0` measures without it).
 */
const SERVER_ARGS = [...SERVER_NODE_ARGS, ...SERVER_NODE_FLAGS];
const LEVELS = (values.levels ?? '1,8,32,64').split(',').map(Number);
const REQUESTS = Number(values.requests ?? 400);
/**
 * Requests per client at least, in a throughput run: a run of 400 requests at 32 clients is 12 per client, so its
 * ramp-up and tail (fewer clients in flight, smaller batches) and one collector pause weigh on the figure as much as
 * the steady state it is meant to measure.
 */
const PER_CLIENT = Number(values['per-client'] ?? 40);
/** The requests of one throughput run at `clients` concurrent clients. */
const requestsAt = (clients: number) => Math.max(REQUESTS, clients * PER_CLIENT);
const REPS = Number(values.reps ?? 3);
const SECONDS = Number(values.seconds ?? 8);
const SURFACE_CALLS = Number(values['surface-calls'] ?? 300);

/** CPU ms per request: the server process, PostgreSQL's processes, this process. */
interface Cpu {
  server: number;
  pg: number;
  client: number;
}

interface Run {
  throughput: number;
  p50: number;
  p99: number;
  ok: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const pad = (v: string | number, n: number) => String(v).padStart(n);
/** Runs `f` REPS times, one after the other. */
async function repeat<T>(f: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let rep = 0; rep < REPS; rep++) out.push(await f());
  return out;
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

const BASE_ENV = {
  RATE_LIMIT_PER_MINUTE: '100000000',
  SWEEP_INTERVAL_MS: '0',
  WEBHOOK_DISPATCH_MS: '0',
  SANDBOX_DISPATCH_MS: '0',
  LOG_LEVEL: 'error',
};

async function main(): Promise<void> {
  const began = performance.now();
  const load0 = loadavg()[0]!;
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
  try {
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
      const pool = (
        await api.post('/v1/integration/pools', { merchantId: merchant.shopId, eventId: event.id, capacity })
      ).body;
      const tier = (
        await api.post('/v1/integration/tiers', {
          eventId: event.id,
          poolId: pool.id,
          name: `GA ${pools.length}`,
          priceMinor: 4000,
        })
      ).body;
      const template = (await api.post('/v1/ticketing/quotes', { tierId: tier.id, quantity: 1 })).body
        .quoteId as string;
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

    const http64: number[] = [];
    const p50at64: number[] = [];
    // 1. One hot pool: HTTP vs the raw ceiling, per level, REPS repetitions (median).
    if (PARTS.has(1)) {
      const hot = await newPool(LEVELS.reduce((n, c) => n + requestsAt(c), 0) * REPS * 2 + 10);
      /**
       * CPU ms per request of one run: the server process, PostgreSQL (every backend) and this process (the clients).
       */
      const measured = async (run: () => Promise<Run>): Promise<Run & { cpu: Cpu }> => {
        const at = () => ({
          server: processCpuMs(servers[0]!.child.pid),
          pg: postgresCpuMs(server.clusterDir),
          client: ownCpuMs(),
        });
        const before = at();
        const result = await run();
        const after = at();
        const per = (k: keyof Cpu) => (after[k] - before[k]) / result.ok;
        return { ...result, cpu: { server: per('server'), pg: per('pg'), client: per('client') } };
      };
      const cpuRows: { c: number; http: Cpu[]; raw: Cpu[] }[] = [];
      const [template] = (await raw.query('select * from quotes where id = $1', [hot.template])).rows;
      console.log(
        `\n1. reserve on one hot pool: ${LEVELS.map(requestsAt).join(' / ')} requests per run (at ${LEVELS.join(' / ')} clients), median of ${REPS} repetitions (1 server process, embedded PostgreSQL; load ${loadavg()[0]!.toFixed(1)})`,
      );
      console.log(
        'concurrency | HTTP reserve/s | p50 ms | p99 ms | raw SQL/s | p50 ms | p99 ms | HTTP ÷ raw | ratio per rep',
      );
      for (const c of LEVELS) {
        const httpRuns: (Run & { cpu: Cpu })[] = [];
        const rawRuns: (Run & { cpu: Cpu })[] = [];
        for (let rep = 0; rep < REPS; rep++) {
          const n = requestsAt(c);
          const ids = await quotes(hot.template, n);
          const h = await measured(() => drive(n, c, async (i) => (await reserveOver(lean, ids[i]!)).status === 201));
          const r = await measured(() => drive(n, c, () => rawReserve(hot.poolId, template)));
          if (h.ok !== n || r.ok !== n) throw new Error(`unexpected refusals: http ${h.ok}, raw ${r.ok}`);
          httpRuns.push(h);
          rawRuns.push(r);
        }
        cpuRows.push({ c, http: httpRuns.map((h) => h.cpu), raw: rawRuns.map((r) => r.cpu) });
        const ratios = httpRuns.map((h, i) => h.throughput / rawRuns[i]!.throughput);
        if (c === LEVELS[LEVELS.length - 1]) {
          http64.push(...httpRuns.map((h) => h.throughput));
          p50at64.push(...httpRuns.map((h) => h.p50));
        }
        console.log(
          [
            pad(c, 11),
            pad(median(httpRuns.map((r) => r.throughput)).toFixed(0), 14),
            pad(median(httpRuns.map((r) => r.p50)).toFixed(1), 6),
            pad(median(httpRuns.map((r) => r.p99)).toFixed(1), 6),
            pad(median(rawRuns.map((r) => r.throughput)).toFixed(0), 9),
            pad(median(rawRuns.map((r) => r.p50)).toFixed(1), 6),
            pad(median(rawRuns.map((r) => r.p99)).toFixed(1), 6),
            pad(median(ratios).toFixed(2), 10),
            ' ' + ratios.map((x) => x.toFixed(2)).join(' '),
          ].join(' | '),
        );
      }
      console.log(
        "\nCPU ms per reserve (median of the repetitions; the server process, PostgreSQL's backends, the bench's clients):",
      );
      console.log('concurrency | HTTP: server | PostgreSQL | clients | total | raw: PostgreSQL | clients | total');
      const cpuMed = (xs: Cpu[], k: keyof Cpu | 'total') =>
        median(xs.map((x) => (k === 'total' ? x.server + x.pg + x.client : x[k])));
      for (const row of cpuRows) {
        console.log(
          [
            pad(row.c, 11),
            pad(cpuMed(row.http, 'server').toFixed(2), 12),
            pad(cpuMed(row.http, 'pg').toFixed(2), 10),
            pad(cpuMed(row.http, 'client').toFixed(2), 7),
            pad(cpuMed(row.http, 'total').toFixed(2), 5),
            pad(cpuMed(row.raw, 'pg').toFixed(2), 15),
            pad(cpuMed(row.raw, 'client').toFixed(2), 7),
            pad(median(row.raw.map((x) => x.pg + x.client)).toFixed(2), 5),
          ].join(' | '),
        );
      }
    }

    // 2. Whole purchases at 64 clients: quote → reserve → confirm (pm_sandbox_visa settles synchronously).
    if (PARTS.has(2)) {
      const buy = await newPool(REPS * (256 + 300) + 10);
      const purchases: Run[] = [];
      /** Per step, per repetition: each call's time (ms), to say which step a purchase waits on. */
      const steps = { quote: [] as number[][], reserve: [] as number[][], confirm: [] as number[][] };
      const timed = async <T>(into: number[], call: () => Promise<T>): Promise<T> => {
        const t0 = performance.now();
        const out = await call();
        into.push(performance.now() - t0);
        return out;
      };
      for (let rep = 0; rep < REPS; rep++) {
        const quoteMs: number[] = [];
        const reserveMs: number[] = [];
        const confirmMs: number[] = [];
        steps.quote.push(quoteMs);
        steps.reserve.push(reserveMs);
        steps.confirm.push(confirmMs);
        purchases.push(
          await drive(256, 64, async () => {
            const q = await timed(quoteMs, () =>
              lean.post('/v1/ticketing/quotes', { tierId: buy.tierId, quantity: 1 }),
            );
            if (q.status !== 201) return false;
            const r = await timed(reserveMs, () => reserveOver(lean, q.body.quoteId));
            if (r.status !== 201) return false;
            const c = await timed(confirmMs, () =>
              lean.post(
                `/v1/ticketing/reservations/${r.body.reservation.id}/confirm`,
                { paymentMethod: 'pm_sandbox_visa' },
                { 'idempotency-key': randomUUID() },
              ),
            );
            return c.status === 200;
          }),
        );
      }
      if (purchases.some((p) => p.ok !== 256))
        throw new Error(`purchases failed: ${purchases.map((p) => p.ok).join(', ')}`);
      console.log(
        `\n2. whole purchases (quote → reserve → confirm, synchronous sandbox card), 64 clients, 256 per run, median of ${REPS} (load ${loadavg()[0]!.toFixed(1)})`,
      );
      console.log(
        `purchases/s ${median(purchases.map((p) => p.throughput)).toFixed(0)} | p50 ${median(purchases.map((p) => p.p50)).toFixed(1)} ms | p99 ${median(purchases.map((p) => p.p99)).toFixed(1)} ms`,
      );
      const stepAt = (runs: number[][], p: number) =>
        median(
          runs.map((ms) =>
            percentile(
              [...ms].sort((a, b) => a - b),
              p,
            ),
          ),
        ).toFixed(1);
      console.log(
        Object.entries(steps)
          .map(([name, runs]) => `${name} p50 ${stepAt(runs, 50)} ms, p99 ${stepAt(runs, 99)} ms`)
          .join(' | '),
      );
      // What each step costs: 300 quotes, then their reserves, then their confirms, 16 at a time, CPU per call.
      const stepCpu: Record<string, Cpu[]> = { quote: [], reserve: [], confirm: [] };
      for (let rep = 0; rep < REPS; rep++) {
        const n = 300;
        const phase = async <T, R>(name: string, items: T[], call: (item: T) => Promise<R>): Promise<R[]> => {
          const out: R[] = new Array(items.length);
          const before = {
            server: processCpuMs(servers[0]!.child.pid),
            pg: postgresCpuMs(server.clusterDir),
            client: ownCpuMs(),
          };
          await drive(items.length, 16, async (i) => ((out[i] = await call(items[i]!)), true));
          const per = (now: number, then: number) => (now - then) / items.length;
          stepCpu[name]!.push({
            server: per(processCpuMs(servers[0]!.child.pid), before.server),
            pg: per(postgresCpuMs(server.clusterDir), before.pg),
            client: per(ownCpuMs(), before.client),
          });
          return out;
        };
        const qs = await phase(
          'quote',
          Array.from({ length: n }, (_, i) => i),
          () => lean.post('/v1/ticketing/quotes', { tierId: buy.tierId, quantity: 1 }),
        );
        const rs = await phase('reserve', qs, (q) => reserveOver(lean, q.body.quoteId));
        const cs = await phase('confirm', rs, (r) =>
          lean.post(
            `/v1/ticketing/reservations/${r.body.reservation.id}/confirm`,
            { paymentMethod: 'pm_sandbox_visa' },
            { 'idempotency-key': randomUUID() },
          ),
        );
        if ([...qs, ...rs].some((r) => r.status !== 201) || cs.some((c) => c.status !== 200))
          throw new Error('a step of the CPU run failed');
      }
      console.log(
        'CPU ms per call, each step alone (16 at a time): ' +
          Object.entries(stepCpu)
            .map(
              ([name, cpu]) =>
                `${name} server ${median(cpu.map((c) => c.server)).toFixed(2)}, PostgreSQL ${median(cpu.map((c) => c.pg)).toFixed(2)}`,
            )
            .join(' | '),
      );
    }

    // 3. Overload: ten times the clients of the last level, for SECONDS each: admission control on (refused clients
    // retrying after exactly their Retry-After, then with jitter) and off.
    if (PARTS.has(3)) {
      const clients = 10 * LEVELS[LEVELS.length - 1]!;
      const OVERLOAD_BOUND_MS =
        BOUND_MS ?? (p50at64.length ? Math.max(5, Math.round(median(p50at64))) : DEFAULT_BOUND_MS);
      const guarded = await startServerProcess(
        { ...BASE_ENV, ...profile, DATABASE_URL: dbUrl, RESERVE_MAX_WAIT_MS: String(OVERLOAD_BOUND_MS) },
        180_000,
        SERVER_ARGS,
      );
      servers.push(guarded);
      const flood = await newPool(1_000_000);
      // Warmed like a server that was up before the sale opened (compiled code, open database connections): a fresh
      // process's first burst otherwise decides the first repetition's p99 (819 ms against 107–115 ms in one run).
      const warm = await quotes(flood.template, 1_000);
      const warmClient = leanClient(guarded.url);
      await drive(warm.length, 64, async (i) => [201, 429].includes((await reserveOver(warmClient, warm[i]!)).status));
      const boundFrom =
        BOUND_MS !== undefined
          ? '--bound'
          : p50at64.length
            ? `part 1's p50 at ${LEVELS[LEVELS.length - 1]} clients`
            : 'default, part 1 did not run';
      console.log(
        `\n3. overload: ${clients} clients (${FLOOD_THREADS} client thread${FLOOD_THREADS > 1 ? 's' : ''}) for ${SECONDS} s on one pool, admission bound ${OVERLOAD_BOUND_MS} ms (${boundFrom}; a refused client waits its Retry-After, or --retry-ms, and retries with the same key; "jitter": a random extra wait up to as long again), median of ${REPS} (load ${loadavg()[0]!.toFixed(1)})`,
      );
      console.log(
        'admission control              | admitted/s | admitted p50 ms | admitted p99 ms | p99 after 1st s | p99 from send | refused | refusal p50 ms | refusal p99 ms',
      );
      for (const [label, target, jitter] of [
        [`on (${OVERLOAD_BOUND_MS} ms bound)`, guarded, false],
        [`on (${OVERLOAD_BOUND_MS} ms bound), jitter`, guarded, true],
        ['off', servers[0]!, false],
      ] as const) {
        const reps: {
          admittedPerS: number;
          p50: number;
          p99: number;
          p99late: number;
          p99sent: number;
          refused: number;
          r50: number;
          r99: number;
          gc: GcTotals;
        }[] = [];
        for (let rep = 0; rep < REPS; rep++) {
          const ids = await quotes(
            flood.template,
            Math.ceil(http64.length ? median(http64) * SECONDS * 3 : 20_000) + clients,
          );
          const gc0 = await gcTotals(target.url);
          const run = await floodInThreads({
            url: target.url,
            token: merchant.apiKey,
            clients,
            quoteIds: ids,
            threads: FLOOD_THREADS,
            seconds: SECONDS,
            jitter,
            retryMs: RETRY_MS,
          });
          const gc = gcBetween(gc0, await gcTotals(target.url));
          const admitted = run.admitted.map((c) => c.ms);
          const refused = run.refused.map((c) => c.ms);
          const late = run.admitted.filter((c) => c.at >= 1000).map((c) => c.ms);
          const sent = run.admitted.map((c) => c.fromSent).sort((a, b) => a - b);
          admitted.sort((a, b) => a - b);
          refused.sort((a, b) => a - b);
          late.sort((a, b) => a - b);
          reps.push({
            admittedPerS: admitted.length / SECONDS,
            p50: percentile(admitted, 50),
            p99: percentile(admitted, 99),
            p99late: percentile(late, 99),
            p99sent: percentile(sent, 99),
            refused: refused.length,
            r50: refused.length ? percentile(refused, 50) : NaN,
            r99: refused.length ? percentile(refused, 99) : NaN,
            gc,
          });
        }
        const med = (f: (r: (typeof reps)[number]) => number) => median(reps.map(f));
        const ms = (v: number) => (Number.isNaN(v) ? '-' : v.toFixed(1));
        const refusedReps = reps.filter((r) => r.refused);
        console.log(
          [
            label.padEnd(30),
            pad(med((r) => r.admittedPerS).toFixed(0), 10),
            pad(ms(med((r) => r.p50)), 15),
            pad(ms(med((r) => r.p99)), 15),
            pad(ms(med((r) => r.p99late)), 15),
            pad(ms(med((r) => r.p99sent)), 14),
            pad(
              med((r) => r.refused),
              7,
            ),
            pad(ms(refusedReps.length ? median(refusedReps.map((r) => r.r50)) : NaN), 14),
            pad(ms(refusedReps.length ? median(refusedReps.map((r) => r.r99)) : NaN), 14),
          ].join(' | '),
        );
        console.log(
          `${''.padEnd(30)}   per rep: admitted p99 ${reps.map((r) => ms(r.p99)).join(', ')}; after 1st s ${reps.map((r) => ms(r.p99late)).join(', ')}; from send ${reps.map((r) => ms(r.p99sent)).join(', ')}`,
        );
        const each = (f: (g: GcTotals) => string) => reps.map((r) => f(r.gc)).join(', ');
        console.log(
          `${''.padEnd(30)}   server per rep: collector scavenges ${each((g) => String(g.minor))} (${each((g) => (g.minorS * 1000).toFixed(0))} ms; ` +
            `10 ms or more: ${each((g) => String(g.minorOver10ms))}), mark-compacts ${each((g) => String(g.major))} (${each((g) => (g.majorS * 1000).toFixed(0))} ms with their incremental steps); ` +
            `paused ${each((g) => ((100 * (g.minorS + g.majorS)) / SECONDS).toFixed(1))} % of ${SECONDS} s; ` +
            `event loop delay, largest ${each((g) => g.loopMaxMs.toFixed(0))} ms, p99 ${each((g) => g.loopP99Ms.toFixed(0))} ms`,
        );
      }

      // What one refusal costs: a server whose one batch in flight waits on the locked pool row refuses every other
      // reserve (a 1 ms bound), so its CPU per call over a run of refusals is a refusal's, whole (HTTP parse, Koa,
      // admission, the 429, the address's charge after it), beside one reserve's at 64 clients from part 1.
      const refuser = await startServerProcess(
        { ...BASE_ENV, DATABASE_URL: dbUrl, RESERVE_MAX_WAIT_MS: '1', RESERVE_BATCHES_IN_FLIGHT: '1' },
        180_000,
        SERVER_ARGS,
      );
      servers.push(refuser);
      const held = await newPool(10);
      const refuserClient = leanClient(refuser.url);
      const [first, blockedQuote, refusedQuote] = await quotes(held.template, 3);
      if ((await reserveOver(refuserClient, first!)).status !== 201)
        throw new Error('refusal cost: the first reserve failed');
      const locker = await holdRows(dbUrl, 'select id from pools where id = $1 for no key update', [held.poolId]);
      try {
        const blocked = reserveOver(refuserClient, blockedQuote!);
        if (!(await poll(locker.waiters)))
          throw new Error('refusal cost: the blocked batch never waited on the pool row');
        const perRefusal: number[] = [];
        for (let rep = 0; rep < REPS + 1; rep++) {
          const n = 3_000;
          const before = processCpuMs(refuser.child.pid);
          const run = await drive(n, 16, async () => (await reserveOver(refuserClient, refusedQuote!)).status === 429);
          if (run.ok !== n) throw new Error(`refusal cost: ${n - run.ok} calls were not refused`);
          if (rep > 0) perRefusal.push(((processCpuMs(refuser.child.pid) - before) * 1000) / n); // the first warms up
        }
        await locker.release();
        if ((await blocked).status !== 201) throw new Error('refusal cost: the blocked reserve failed');
        console.log(
          `server CPU per refusal (3,000 refusals, 16 at a time, median of ${REPS}): ${median(perRefusal).toFixed(0)} µs`,
        );
      } finally {
        await locker.end();
      }
    }

    // 4. One, two and four server processes on one database, 64 clients spread over them.
    if (PARTS.has(4)) {
      const farm = [servers[0]!];
      while (farm.length < 4) {
        const s = await startServerProcess(
          { ...BASE_ENV, DATABASE_URL: dbUrl, RESERVE_MAX_WAIT_MS: '60000' },
          180_000,
          SERVER_ARGS,
        );
        servers.push(s);
        farm.push(s);
      }
      const perRun = requestsAt(64);
      const scale = await newPool(perRun * 4 * REPS + 10);
      const [scaleTemplate] = (await raw.query('select * from quotes where id = $1', [scale.template])).rows;
      console.log(
        `\n4. server processes on one database: 64 clients, ${perRun} reserves per run, one pool, median of ${REPS} (load ${loadavg()[0]!.toFixed(1)})`,
      );
      console.log('processes | HTTP reserve/s | p99 ms | ÷ 1 process | ÷ raw ceiling (64 connections)');
      const rawScale = median(
        await repeat(() => drive(perRun, 64, () => rawReserve(scale.poolId, scaleTemplate)).then((r) => r.throughput)),
      );
      let one = 0;
      for (const n of [1, 2, 4]) {
        const targets = farm.slice(0, n).map((s) => leanClient(s.url));
        const runs = await repeat(async () => {
          const ids = await quotes(scale.template, perRun);
          return drive(perRun, 64, async (i) => (await reserveOver(targets[i % n]!, ids[i]!)).status === 201);
        });
        const throughput = median(runs.map((r) => r.throughput));
        if (n === 1) one = throughput;
        console.log(
          [
            pad(n, 9),
            pad(throughput.toFixed(0), 14),
            pad(median(runs.map((r) => r.p99)).toFixed(1), 6),
            pad((throughput / one).toFixed(2), 11),
            pad((throughput / rawScale).toFixed(2), 10),
          ].join(' | '),
        );
      }

      // The same over 64 pools, call i on pool i % 64: no row is hot, so what more processes add (the server's CPU,
      // spread over the cores) shows, beside the same statements straight from 64 connections on the same pools.
      const spread: Awaited<ReturnType<typeof newPool>>[] = [];
      for (let p = 0; p < 64; p++) spread.push(await newPool(Math.ceil((perRun * 4 * REPS) / 64) + 10));
      const templates = await Promise.all(
        spread.map(async (x) => (await raw.query('select * from quotes where id = $1', [x.template])).rows[0]),
      );
      /** `perRun` quotes, the i-th on pool i % 64. */
      const spreadQuotes = async () => {
        const perPool = await Promise.all(spread.map((x) => quotes(x.template, Math.ceil(perRun / 64))));
        return Array.from({ length: perRun }, (_, i) => perPool[i % 64]![Math.floor(i / 64)]!);
      };
      console.log(
        `\n   the same over 64 pools (call i on pool i % 64), median of ${REPS} (load ${loadavg()[0]!.toFixed(1)})`,
      );
      console.log('processes | HTTP reserve/s | p99 ms | ÷ 1 process | ÷ raw (64 connections, 64 pools)');
      const rawSpread = median(
        await repeat(() =>
          drive(perRun, 64, (i) => rawReserve(spread[i % 64]!.poolId, templates[i % 64])).then((r) => r.throughput),
        ),
      );
      for (const n of [1, 2, 4]) {
        const targets = farm.slice(0, n).map((s) => leanClient(s.url));
        const runs = await repeat(async () => {
          const ids = await spreadQuotes();
          return drive(perRun, 64, async (i) => (await reserveOver(targets[i % n]!, ids[i]!)).status === 201);
        });
        const throughput = median(runs.map((r) => r.throughput));
        if (n === 1) one = throughput;
        console.log(
          [
            pad(n, 9),
            pad(throughput.toFixed(0), 14),
            pad(median(runs.map((r) => r.p99)).toFixed(1), 6),
            pad((throughput / one).toFixed(2), 11),
            pad((throughput / rawSpread).toFixed(2), 10),
          ].join(' | '),
        );
      }
    }

    // The invariant, for every pool used.
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
    if (broken) process.exitCode = 1;

    // 5. The same tool call over REST, MCP and A2A against the first server.
    if (PARTS.has(5)) {
      await benchSurfaces(servers[0]!.url, merchant.apiKey, SURFACE_CALLS, REPS, servers[0]!.child.pid);
    }

    console.log(
      `\nload average (1 min) at start ${load0.toFixed(1)}, at end ${loadavg()[0]!.toFixed(1)}; ${((performance.now() - began) / 1000).toFixed(0)} s in all`,
    );
  } finally {
    for (const c of clients) c.close();
    await raw.end();
    await Promise.all(servers.map((s) => s.stop()));
    await db.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  // 6. The growth table: its own PostgreSQL and server, after everything above has stopped.
  if (PARTS.has(6)) {
    console.log(`\n6. cost as the work grows (bench/growth.ts; load ${loadavg()[0]!.toFixed(1)})`);
    const sizes = (['keys', 'holds', 'outbox'] as const).flatMap((k) => (values[k] ? [`--${k}`, values[k]] : []));
    const child = spawn(process.execPath, [join(import.meta.dirname, 'growth.ts'), ...sizes], { stdio: 'inherit' });
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) process.exitCode = 1;
  }
}

await main();
