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
 *                          --flood-threads 1 --keys 1000000 --holds 100000 --outbox 100000 --parts 1,2,3,4,5,6 --cpu-prof DIR
 *                          --purchase-servers 1 --pin-servers CPUS]
 * Parts 1–4 are bench/reserve-{hot-pool,purchases,overload,processes}.ts; the set-up and the invariant check are
 * bench/reserve-fixture.ts, the options bench/reserve-options.ts.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { benchTools, checkInvariant, openBench } from './reserve-fixture.ts';
import { benchHotPool } from './reserve-hot-pool.ts';
import { benchOverload } from './reserve-overload.ts';
import { PARTS, REPS, SURFACE_CALLS, values } from './reserve-options.ts';
import { benchProcesses } from './reserve-processes.ts';
import { benchPurchases } from './reserve-purchases.ts';
import { benchSurfaces } from './surfaces.ts';

async function main(): Promise<void> {
  const began = performance.now();
  const load0 = loadavg()[0]!;
  const opened = await openBench();
  try {
    const b = await benchTools(opened);
    // 1. One hot pool: HTTP vs the raw ceiling, per level, REPS repetitions (median).
    const hot = PARTS.has(1) ? await benchHotPool(b) : { http64: [], p50at64: [] };
    // 2. Whole purchases at 64 clients: quote → reserve → confirm (pm_sandbox_visa settles synchronously).
    if (PARTS.has(2)) await benchPurchases(b);
    // 3. Overload: ten times the clients of the last level, admission control on and off.
    if (PARTS.has(3)) await benchOverload(b, hot);
    // 4. One, two and four server processes on one database, 64 clients spread over them.
    if (PARTS.has(4)) await benchProcesses(b);

    // The invariant, for every pool used.
    if (!(await checkInvariant(b))) process.exitCode = 1;

    // 5. The same tool call over REST, MCP and A2A against the first server.
    if (PARTS.has(5)) {
      await benchSurfaces(b.servers[0]!.url, b.merchant.apiKey, SURFACE_CALLS, REPS, b.servers[0]!.child.pid);
    }

    console.log(
      `\nload average (1 min) at start ${load0.toFixed(1)}, at end ${loadavg()[0]!.toFixed(1)}; ${((performance.now() - began) / 1000).toFixed(0)} s in all`,
    );
  } finally {
    await opened.close();
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
