/**
 * Part 4 of bench/reserve.ts: one, two and four server processes on one database, 64 clients spread over them, on one
 * hot pool and over 64 pools, beside the raw ceiling of the same statements.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { startServerProcess } from '../test/support/server-process.ts';
import { cpuNow } from './cpu.ts';
import { type Cpu, drive, median, pad, repeat, type Run, withCpu } from './reserve-drive.ts';
import { BASE_ENV, type Bench } from './reserve-fixture.ts';
import { PIN_SERVERS, REPS, requestsAt, SERVER_ARGS } from './reserve-options.ts';

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

  /** Runs 64 clients over the first `n` processes, REPS times, and prints its row of the table. */
  const rowOf = async (
    n: number,
    ids: () => Promise<string[]>,
    ceiling: number,
    first: { rate: number; cpu: number },
  ) => {
    const targets = farm.slice(0, n).map((s) => leanClient(s.url));
    const runs = await repeat(async () => {
      const quoteIds = await ids();
      return measured(() =>
        drive(perRun, 64, async (i) => (await reserveOver(targets[i % n]!, quoteIds[i]!)).status === 201),
      );
    });
    const throughput = median(runs.map((r) => r.throughput));
    const cpu = (k: keyof Cpu) => median(runs.map((r) => r.cpu[k]));
    const total = median(runs.map((r) => r.cpu.server + r.cpu.pg + r.cpu.client));
    if (n === 1) Object.assign(first, { rate: throughput, cpu: total });
    console.log(
      [
        pad(n, 9),
        pad(throughput.toFixed(0), 14),
        pad(median(runs.map((r) => r.p99)).toFixed(1), 6),
        pad((throughput / first.rate).toFixed(2), 11),
        pad((throughput / ceiling).toFixed(2), 7),
        pad(`${cpu('server').toFixed(2)} / ${cpu('pg').toFixed(2)} / ${cpu('client').toFixed(2)}`, 26),
        pad((first.cpu / total).toFixed(2), 16),
      ].join(' | '),
    );
  };
  const HEADER =
    'processes | HTTP reserve/s | p99 ms | ÷ 1 process | ÷ raw ¹ | CPU ms/reserve ² servers / PG / clients | per CPU-s ÷ 1 ³';
  // Every process is warmed by 1,000 reserves first (as part 3's server), so that no row measures a process whose code
  // is still being compiled: processes 2-4 would otherwise serve their first row cold.
  const warmPool = await newPool(farm.length * 1_000 + 10);
  for (const s of farm) {
    const ids = await quotes(warmPool.template, 1_000);
    const client = leanClient(s.url);
    await drive(ids.length, 64, async (i) => (await reserveOver(client, ids[i]!)).status === 201);
  }
  const scale = await newPool(perRun * 4 * REPS + 10);
  const [scaleTemplate] = (await raw.query('select * from quotes where id = $1', [scale.template])).rows;
  console.log(
    `\n4. server processes on one database: 64 clients, ${perRun} reserves per run, one pool, median of ${REPS}${PIN_SERVERS === undefined ? '' : `, every server process on CPU ${PIN_SERVERS}`} (load ${loadavg()[0]!.toFixed(1)})`,
  );
  console.log(HEADER);
  const rawScale = median(
    await repeat(() => drive(perRun, 64, () => rawReserve(scale.poolId, scaleTemplate)).then((r) => r.throughput)),
  );
  const hotOne = { rate: 0, cpu: 0 };
  for (const n of [1, 2, 4]) await rowOf(n, () => quotes(scale.template, perRun), rawScale, hotOne);

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
  console.log(HEADER);
  const rawSpread = median(
    await repeat(() =>
      drive(perRun, 64, (i) => rawReserve(spread[i % 64]!.poolId, templates[i % 64])).then((r) => r.throughput),
    ),
  );
  const spreadOne = { rate: 0, cpu: 0 };
  for (const n of [1, 2, 4]) await rowOf(n, spreadQuotes, rawSpread, spreadOne);
  console.log(
    '¹ the same statements straight from 64 connections on the same pools · ² every server process, PostgreSQL, the' +
      " bench's clients · ³ reserves per CPU-second of all three, ÷ one process's",
  );
}
