/**
 * How bench/reserve.ts drives load: `n` calls at a fixed concurrency with their throughput and latency percentiles,
 * repeated REPS times, and the small statistics its tables print.
 */
import { REPS } from './reserve-options.ts';

/** CPU ms per request: the server process, PostgreSQL's processes, this process. */
export interface Cpu {
  server: number;
  pg: number;
  client: number;
}

/** One throughput run: calls per second, latency percentiles (ms), the calls that succeeded. */
export interface Run {
  throughput: number;
  p50: number;
  p99: number;
  ok: number;
}

/** The p-th percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
/** The median (the upper one of an even count). */
export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
/** A table cell, right-aligned to `n` characters. */
export const pad = (v: string | number, n: number) => String(v).padStart(n);
/** Runs `f` REPS times, one after the other. */
export async function repeat<T>(f: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let rep = 0; rep < REPS; rep++) out.push(await f());
  return out;
}

/**
 * Runs `run` between two readings of `read` (CPU ms used so far by the server, PostgreSQL and the clients) and adds
 * the CPU ms per call that succeeded.
 */
export async function withCpu(read: () => Cpu, run: () => Promise<Run>): Promise<Run & { cpu: Cpu }> {
  const before = read();
  const result = await run();
  const after = read();
  const per = (k: keyof Cpu) => (after[k] - before[k]) / result.ok;
  return { ...result, cpu: { server: per('server'), pg: per('pg'), client: per('client') } };
}

/**
 * Runs `task(i)` for i in [0, n) with `concurrency` workers; returns throughput (every call, failed or not) and latency
 * percentiles (ms), and warns when a call failed (`task` answered false).
 */
export async function drive(n: number, concurrency: number, task: (i: number) => Promise<boolean>): Promise<Run> {
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
  // Every call counts in the rate, so a run whose calls failed (a pool sold out, errors) reads faster than it was.
  if (ok < n) console.warn(`bench: ${n - ok} of ${n} calls failed in one run, and its rate counts them`);
  return { throughput: n / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), ok };
}
