/**
 * The measuring side of `bench/surfaces.ts`: calls of one tool over each surface in interleaved rounds (with the CPU the
 * server and this process spent), and the table of medians and ratios to REST printed for them.
 */
import { ownCpuMs as clientCpuMs, processCpuMs } from './cpu.ts';

/** One surface's figures in one repetition. */
export interface Stats {
  mean: number;
  p50: number;
  p99: number;
  /** CPU ms per call spent by the server process (all its threads) and by this process (the client). */
  serverCpu: number;
  clientCpu: number;
}

/** Mean, p50, p99 and CPU per call of one surface's call times. */
function stats(ms: number[], serverCpu: number, clientCpu: number): Stats {
  const sorted = [...ms].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return {
    mean: ms.reduce((a, b) => a + b, 0) / ms.length,
    p50: at(50),
    p99: at(99),
    serverCpu: serverCpu / ms.length,
    clientCpu: clientCpu / ms.length,
  };
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** One call of a tool over one surface; false when it failed. */
export type Call = () => Promise<boolean>;

/**
 * One repetition: `calls` calls per surface, in ten interleaved rounds so load drift hits every surface alike; each
 * round starts with the next surface, so none always follows the same one.
 */
export async function repetition(
  surfaces: Record<string, Call>,
  calls: number,
  label: string,
  serverPid: number | undefined,
): Promise<Record<string, Stats>> {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(surfaces).map((k) => [k, []]));
  const cpu: Record<string, { server: number; client: number }> = Object.fromEntries(
    Object.keys(surfaces).map((k) => [k, { server: 0, client: 0 }]),
  );
  const rounds = 10;
  const entries = Object.entries(surfaces);
  for (let round = 0; round < rounds; round++) {
    for (const [name, call] of [
      ...entries.slice(round % entries.length),
      ...entries.slice(0, round % entries.length),
    ]) {
      const server0 = processCpuMs(serverPid);
      const client0 = clientCpuMs();
      for (let i = 0; i < Math.ceil(calls / rounds); i++) {
        const t0 = performance.now();
        if (!(await call())) throw new Error(`${name}: ${label} failed`);
        times[name]!.push(performance.now() - t0);
      }
      cpu[name]!.server += processCpuMs(serverPid) - server0;
      cpu[name]!.client += clientCpuMs() - client0;
    }
  }
  return Object.fromEntries(Object.entries(times).map(([k, ms]) => [k, stats(ms, cpu[k]!.server, cpu[k]!.client)]));
}

/**
 * The figures of one tool: per surface the median over repetitions of mean, p50, p99, CPU per call and of the ratios to
 * REST.
 */
export interface SurfaceFigures {
  [surface: string]: Stats & { meanRatio: number; p50Ratio: number; meanRatios: number[] };
}

/** Prints one tool's table (per surface, medians over the repetitions and ratios to REST) and returns its figures. */
export function report(label: string, reps: Record<string, Stats>[], calls: number): SurfaceFigures {
  const figures: SurfaceFigures = {};
  console.log(
    `\n${label}, one call at a time, ${calls} calls per surface per repetition, median of ${reps.length} (same server, same run)`,
  );
  console.log(
    'surface           | mean ms | p50 ms | p99 ms | mean ÷ REST | p50 ÷ REST | server CPU ms/call | client CPU ms/call | mean ÷ REST per rep',
  );
  for (const name of Object.keys(reps[0]!)) {
    const meanRatios = reps.map((r) => r[name]!.mean / r.REST!.mean);
    const f = {
      mean: median(reps.map((r) => r[name]!.mean)),
      p50: median(reps.map((r) => r[name]!.p50)),
      p99: median(reps.map((r) => r[name]!.p99)),
      serverCpu: median(reps.map((r) => r[name]!.serverCpu)),
      clientCpu: median(reps.map((r) => r[name]!.clientCpu)),
      meanRatio: median(meanRatios),
      p50Ratio: median(reps.map((r) => r[name]!.p50 / r.REST!.p50)),
      meanRatios,
    };
    figures[name] = f;
    console.log(
      [
        name.padEnd(17),
        f.mean.toFixed(2).padStart(7),
        f.p50.toFixed(2).padStart(6),
        f.p99.toFixed(2).padStart(6),
        f.meanRatio.toFixed(2).padStart(11),
        f.p50Ratio.toFixed(2).padStart(10),
        f.serverCpu.toFixed(3).padStart(18),
        f.clientCpu.toFixed(3).padStart(18),
        ' ' + meanRatios.map((x) => x.toFixed(2)).join(' '),
      ].join(' | '),
    );
  }
  return figures;
}
