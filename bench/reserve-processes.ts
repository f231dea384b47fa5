/**
 * Part 4 of bench/reserve.ts: one, two and four server processes on one database, 64 clients spread over them, on one
 * hot pool and over 64 pools, beside the raw ceiling of the same statements.
 */
import { loadavg } from 'node:os';
import { startServerProcess } from '../test/support/server-process.ts';
import { drive, median, pad, repeat } from './reserve-drive.ts';
import { BASE_ENV, type Bench } from './reserve-fixture.ts';
import { REPS, requestsAt, SERVER_ARGS } from './reserve-options.ts';

/** Runs part 4 (starting the processes it lacks; `b.servers` stops them). */
export async function benchProcesses(b: Bench): Promise<void> {
  const { dbUrl, servers, raw, newPool, quotes, leanClient, reserveOver, rawReserve } = b;
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
