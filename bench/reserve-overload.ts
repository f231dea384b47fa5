/**
 * Part 3 of bench/reserve.ts: ten times the clients of the last level on one pool, with admission control on (refused
 * clients retrying after their Retry-After, then with jitter) and off; then what one refusal costs the server.
 */
import { loadavg } from 'node:os';
import { holdRows, poll } from '../test/support/row-lock.ts';
import { startServerProcess } from '../test/support/server-process.ts';
import { processCpuMs } from './cpu.ts';
import { floodInThreads } from './flood.ts';
import { gcBetween, gcTotals, type GcTotals } from './gc.ts';
import { drive, median, pad, percentile } from './reserve-drive.ts';
import { BASE_ENV, type Bench } from './reserve-fixture.ts';
import {
  BOUND_MS,
  DEFAULT_BOUND_MS,
  FLOOD_THREADS,
  LEVELS,
  REPS,
  RETRY_MS,
  SECONDS,
  SERVER_ARGS,
} from './reserve-options.ts';

/** Runs part 3; `http64` and `p50at64` are part 1's figures at the last level (empty when it did not run). */
export async function benchOverload(
  b: Bench,
  { http64, p50at64 }: { http64: number[]; p50at64: number[] },
): Promise<void> {
  const { dbUrl, merchant, profile, servers, newPool, quotes, leanClient, reserveOver } = b;
  const clients = 10 * LEVELS[LEVELS.length - 1]!;
  const OVERLOAD_BOUND_MS = BOUND_MS ?? (p50at64.length ? Math.max(5, Math.round(median(p50at64))) : DEFAULT_BOUND_MS);
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
    if (!(await poll(locker.waiters))) throw new Error('refusal cost: the blocked batch never waited on the pool row');
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
