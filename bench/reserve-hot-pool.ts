/**
 * Part 1 of bench/reserve.ts: reserve on ONE pool over HTTP against the raw single-transaction ceiling (the same
 * conditional update and hold insert straight to PostgreSQL), at each concurrency, with the CPU each costs.
 */
import { loadavg } from 'node:os';
import { cpuNow } from './cpu.ts';
import { drive, median, pad, withCpu, type Cpu, type Run } from './reserve-drive.ts';
import type { Bench } from './reserve-fixture.ts';
import { LEVELS, REPS, requestsAt } from './reserve-options.ts';

/** Runs part 1; returns the throughputs and p50s of HTTP reserves at the last level (part 3's defaults). */
export async function benchHotPool(b: Bench): Promise<{ http64: number[]; p50at64: number[] }> {
  const { servers, clusterDir, raw, newPool, quotes, lean, reserveOver, rawReserve } = b;
  const http64: number[] = [];
  const p50at64: number[] = [];
  const hot = await newPool(LEVELS.reduce((n, c) => n + requestsAt(c), 0) * REPS * 2 + 10);
  /**
   * CPU ms per request of one run: the server process, PostgreSQL (every backend) and this process (the clients).
   */
  const measured = (run: () => Promise<Run>) => withCpu(() => cpuNow([servers[0]!.child.pid], clusterDir), run);
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
  return { http64, p50at64 };
}
