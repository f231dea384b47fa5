/**
 * Part 4 of bench/reserve.ts: one, two and four server processes on one database, 64 clients spread over them, on one
 * hot pool and over 64 pools, beside the raw ceiling of the same statements.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { startServerProcess } from '../test/support/server-process.ts';
import { cpuNow, machineTicks, mainThreadSchedMs } from './cpu.ts';
import { type Cpu, drive, median, pad, repeat, type Run, withCpu } from './reserve-drive.ts';
import { BASE_ENV, type Bench } from './reserve-fixture.ts';
import { PIN_SERVERS, REPS, requestsAt, SERVER_ARGS } from './reserve-options.ts';

/** The process counts of part 4's rows. */
const COUNTS = [1, 2, 4];
/** Runs of `perRun` reserves a table takes from its pools: the raw ceiling's REPS, a round not measured, REPS rounds. */
const PER_TABLE = REPS + COUNTS.length * (REPS + 1);
/** A repetition of a row, with its main threads' shares of the run (on a CPU, waiting for one) and the machine's idle. */
type Measured = Run & { cpu: Cpu; mains: { run: number; wait: number }[]; idle: number };

/** Runs part 4 (starting the processes it lacks; `b.servers` stops them). */
export async function benchProcesses(b: Bench): Promise<void> {
  const { dbUrl, clusterDir, servers, raw, newPool, quotes, leanClient, reserveOver, rawReserve } = b;
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
  // `--pin-servers`: every thread of every server process on the same CPUs, so each row's processes share one budget.
  if (PIN_SERVERS !== undefined)
    for (const s of farm) {
      try {
        execFileSync('taskset', ['-a', '-p', '-c', PIN_SERVERS, String(s.child.pid)], { stdio: 'ignore' });
      } catch (err) {
        throw new Error(`--pin-servers: taskset (util-linux) could not pin the servers to CPU ${PIN_SERVERS}`, {
          cause: err,
        });
      }
    }
  const perRun = requestsAt(64);
  /**
   * The run's CPU ms per reserve: every server process of the farm (idle ones too), PostgreSQL's processes and the
   * bench's clients. On two cores the processes cannot add CPU, so reserves per CPU-second (all three) is what says
   * whether N processes sell as fast as one would with the same CPU.
   */
  const measured = (run: () => Promise<Run>) =>
    withCpu(
      () =>
        cpuNow(
          farm.map((s) => s.child.pid),
          clusterDir,
        ),
      run,
    );

  /**
   * One repetition: 64 clients over the first `n` processes, with the share of its wall time each process's main
   * thread was on a CPU and was runnable but waiting for one, and the machine's idle share.
   */
  const runOver = async (n: number, ids: () => Promise<string[]>): Promise<Measured> => {
    const targets = farm.slice(0, n).map((s) => leanClient(s.url));
    const quoteIds = await ids();
    const mains = () => farm.slice(0, n).map((s) => mainThreadSchedMs(s.child.pid));
    const [t0, m0, k0] = [performance.now(), mains(), machineTicks()];
    const run = await measured(() =>
      drive(perRun, 64, async (i) => (await reserveOver(targets[i % n]!, quoteIds[i]!)).status === 201),
    );
    const [wall, m1, k1] = [performance.now() - t0, mains(), machineTicks()];
    return {
      ...run,
      mains: m1.map((m, k) => ({ run: (m.run - m0[k]!.run) / wall, wait: (m.wait - m0[k]!.wait) / wall })),
      idle: (k1.idle - k0.idle) / (k1.all - k0.all),
    };
  };

  /**
   * Runs the rows of 1, 2 and 4 processes, REPS repetitions each, interleaved in rotated orders (1, 2, 4, then 2, 4, 1,
   * then 4, 1, 2, ...), so that each row runs once in each place of a round: a drift over the run (the tables and the
   * pool row's versions growing, the machine's other load) and what the run before leaves behind fall on every row
   * alike. Prints the rows, each repetition's rate in the order run and the main threads' line.
   */
  const table = async (ids: () => Promise<string[]>, ceiling: number) => {
    const runs = new Map<number, Measured[]>(COUNTS.map((n) => [n, []]));
    // A round not measured first: the first round after the ceiling's run was the slowest for every row in the runs
    // of 2026-11-29 (docs/performance-log.md, run AF).
    for (const n of COUNTS) await runOver(n, ids);
    const rounds: string[] = [];
    for (let rep = 0; rep < REPS; rep++) {
      const round: string[] = [];
      for (const n of COUNTS.map((_, i) => COUNTS[(i + rep) % COUNTS.length]!)) {
        const run = await runOver(n, ids);
        runs.get(n)!.push(run);
        round.push(`${n}: ${run.throughput.toFixed(0)}${run.ok < perRun ? ` (${perRun - run.ok} failed)` : ''}`);
      }
      rounds.push(round.join(', '));
    }
    const rate = (n: number) => median(runs.get(n)!.map((r) => r.throughput));
    const total = (n: number) => median(runs.get(n)!.map((r) => r.cpu.server + r.cpu.pg + r.cpu.client));
    for (const n of COUNTS) {
      const cpu = (k: keyof Cpu) => median(runs.get(n)!.map((r) => r.cpu[k]));
      console.log(
        [
          pad(n, 9),
          pad(rate(n).toFixed(0), 14),
          pad(median(runs.get(n)!.map((r) => r.p99)).toFixed(1), 6),
          pad((rate(n) / rate(1)).toFixed(2), 11),
          pad((rate(n) / ceiling).toFixed(2), 7),
          pad(`${cpu('server').toFixed(2)} / ${cpu('pg').toFixed(2)} / ${cpu('client').toFixed(2)}`, 26),
          pad((total(1) / total(n)).toFixed(2), 16),
        ].join(' | '),
      );
    }
    const share = (n: number, k: number, f: 'run' | 'wait') => median(runs.get(n)!.map((r) => r.mains[k]![f]));
    const mainsOf = (n: number) =>
      Array.from({ length: n }, (_, k) => `${share(n, k, 'run').toFixed(2)}/${share(n, k, 'wait').toFixed(2)}`);
    console.log(`   each repetition in the order run, processes: reserves a second: ${rounds.join(' | ')}`);
    console.log(
      `   main threads on a CPU / waiting for one, share of the run (each process): ${COUNTS.map((n) => `${n}: ${mainsOf(n).join(' ')}`).join(' · ')}; machine idle ${COUNTS.map((n) => median(runs.get(n)!.map((r) => r.idle)).toFixed(2)).join(', ')}`,
    );
  };
  const HEADER =
    'processes | HTTP reserve/s | p99 ms | ÷ 1 process | ÷ raw ¹ | CPU ms/reserve ² servers / PG / clients | per CPU-s ÷ 1 ³';
  // Every process is warmed by 5,000 reserves first, so that no row measures a process whose code is still being
  // compiled: processes 2-4 would otherwise serve their first row cold. (With 1,000, and with 5,000 alike, the rows
  // still ran faster round after round: the round not measured and the rotated orders are for that.)
  const warmPool = await newPool(farm.length * 5_000 + 10);
  for (const s of farm) {
    const ids = await quotes(warmPool.template, 5_000);
    const client = leanClient(s.url);
    await drive(ids.length, 64, async (i) => (await reserveOver(client, ids[i]!)).status === 201);
  }
  const scale = await newPool(perRun * PER_TABLE + 10);
  const [scaleTemplate] = (await raw.query('select * from quotes where id = $1', [scale.template])).rows;
  console.log(
    `\n4. server processes on one database: 64 clients, ${perRun} reserves per run, one pool, median of ${REPS}${PIN_SERVERS === undefined ? '' : `, every server process on CPU ${PIN_SERVERS}`} (load ${loadavg()[0]!.toFixed(1)})`,
  );
  console.log(HEADER);
  const rawScale = median(
    await repeat(() => drive(perRun, 64, () => rawReserve(scale.poolId, scaleTemplate)).then((r) => r.throughput)),
  );
  await table(() => quotes(scale.template, perRun), rawScale);

  // The same over 64 pools, call i on pool i % 64: no row is hot, so what more processes add (the server's CPU,
  // spread over the cores) shows, beside the same statements straight from 64 connections on the same pools.
  const spread: Awaited<ReturnType<typeof newPool>>[] = [];
  for (let p = 0; p < 64; p++) spread.push(await newPool(Math.ceil((perRun * PER_TABLE) / 64) + 10));
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
  console.log(HEADER);
  const rawSpread = median(
    await repeat(() =>
      drive(perRun, 64, (i) => rawReserve(spread[i % 64]!.poolId, templates[i % 64])).then((r) => r.throughput),
    ),
  );
  await table(spreadQuotes, rawSpread);
  console.log(
    '¹ the same statements straight from 64 connections on the same pools · ² every server process, PostgreSQL, the' +
      " bench's clients · ³ reserves per CPU-second of all three, ÷ one process's",
  );
}
