/**
 * Part 2 of bench/reserve.ts: whole purchases at 64 clients (quote → reserve → confirm, the synchronous sandbox card),
 * each repetition beside a run of the raw single-transaction ceiling at 64 connections just before it (so the ratio
 * of each repetition compares two runs a few seconds apart, not minutes), the time each step takes, and each step's
 * CPU alone.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { cpuNow } from './cpu.ts';
import { drive, median, percentile, withCpu, type Cpu, type Run } from './reserve-drive.ts';
import { startServerProcess } from '../test/support/server-process.ts';
import { BASE_ENV, type Bench, type LeanClient } from './reserve-fixture.ts';
import { PURCHASE_SERVERS, REPS, requestsAt, SERVER_ARGS } from './reserve-options.ts';

/**
 * Purchases per run: as many per client as part 1's reserve runs at 64 clients (`--per-client`, 40), so the ramp-up and
 * the tail weigh as little on the figure as they do on the raw ceiling it is divided by.
 */
const PURCHASES = requestsAt(64);

/** Whole purchases that warm the servers before the first repetition (not measured). */
const WARM_PURCHASES = 1000;

/** Runs part 2. */
export async function benchPurchases(b: Bench): Promise<void> {
  const { servers, clusterDir, newPool, lean, reserveOver, raw, rawReserve, dbUrl, leanClient } = b;
  // `--purchase-servers N`: the purchases dealt out over N processes on the one database (the steps' CPU alone stays on
  // the first).
  while (servers.length < PURCHASE_SERVERS)
    servers.push(
      await startServerProcess(
        { ...BASE_ENV, DATABASE_URL: dbUrl, RESERVE_MAX_WAIT_MS: '60000' },
        180_000,
        SERVER_ARGS,
      ),
    );
  const targets = [lean, ...servers.slice(1, PURCHASE_SERVERS).map((s) => leanClient(s.url))];
  const buy = await newPool(REPS * (PURCHASES + 300) + 10 + WARM_PURCHASES);
  const ceiling = await newPool(REPS * PURCHASES + 10);
  const [template] = (await raw.query('select * from quotes where id = $1', [ceiling.template])).rows;
  const rawRuns: Run[] = [];
  const purchases: (Run & { cpu: Cpu })[] = [];
  const read = () =>
    cpuNow(
      servers.slice(0, PURCHASE_SERVERS).map((s) => s.child.pid),
      clusterDir,
    );
  /** Per step, per repetition: each call's time (ms), to say which step a purchase waits on. */
  const steps = { quote: [] as number[][], reserve: [] as number[][], confirm: [] as number[][] };
  const timed = async <T>(into: number[] | undefined, call: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    const out = await call();
    into?.push(performance.now() - t0);
    return out;
  };
  /** One whole purchase through `client`; each step's time goes to `ms` when given. */
  const purchase = async (client: LeanClient, ms?: { quote: number[]; reserve: number[]; confirm: number[] }) => {
    const q = await timed(ms?.quote, () => client.post('/v1/ticketing/quotes', { tierId: buy.tierId, quantity: 1 }));
    if (q.status !== 201) return false;
    const r = await timed(ms?.reserve, () => reserveOver(client, q.body.quoteId));
    if (r.status !== 201) return false;
    const c = await timed(ms?.confirm, () =>
      client.post(
        `/v1/ticketing/reservations/${r.body.reservation.id}/confirm`,
        { paymentMethod: 'pm_sandbox_visa' },
        { 'idempotency-key': randomUUID() },
      ),
    );
    return c.status === 200;
  };
  // Every process is warmed first, as part 4's are: its first purchases compile the quote's and the confirm's code (a
  // server that ran part 1 has compiled only the reserve's), so the first repetition measures what the others do.
  await drive(WARM_PURCHASES, 64, (i) => purchase(targets[i % PURCHASE_SERVERS]!));
  for (let rep = 0; rep < REPS; rep++) {
    const ms = { quote: [] as number[], reserve: [] as number[], confirm: [] as number[] };
    steps.quote.push(ms.quote);
    steps.reserve.push(ms.reserve);
    steps.confirm.push(ms.confirm);
    const r = await drive(PURCHASES, 64, () => rawReserve(ceiling.poolId, template));
    if (r.ok !== PURCHASES) throw new Error(`raw reserves refused: ${PURCHASES - r.ok}`);
    rawRuns.push(r);
    purchases.push(
      await withCpu(read, () => drive(PURCHASES, 64, (i) => purchase(targets[i % PURCHASE_SERVERS]!, ms))),
    );
  }
  if (purchases.some((p) => p.ok !== PURCHASES))
    throw new Error(`purchases failed: ${purchases.map((p) => p.ok).join(', ')}`);
  console.log(
    `\n2. whole purchases (quote → reserve → confirm, synchronous sandbox card), 64 clients, ${PURCHASES} per run, ${PURCHASE_SERVERS} server process${PURCHASE_SERVERS > 1 ? 'es' : ''}, median of ${REPS} (load ${loadavg()[0]!.toFixed(1)})`,
  );
  console.log(
    `purchases/s ${median(purchases.map((p) => p.throughput)).toFixed(0)} | p50 ${median(purchases.map((p) => p.p50)).toFixed(1)} ms | p99 ${median(purchases.map((p) => p.p99)).toFixed(1)} ms`,
  );
  const ratios = purchases.map((p, i) => p.throughput / rawRuns[i]!.throughput);
  console.log(
    `÷ the raw ceiling (64 connections, run just before each repetition) ${median(ratios).toFixed(2)} | per repetition ${ratios.map((x) => x.toFixed(2)).join(' ')} | raw/s ${rawRuns.map((x) => x.throughput.toFixed(0)).join(' ')}`,
  );
  const cpuAt = (k: keyof Cpu) => median(purchases.map((p) => p.cpu[k]));
  console.log(
    `CPU ms per purchase: server ${cpuAt('server').toFixed(2)}, PostgreSQL ${cpuAt('pg').toFixed(2)}, clients ${cpuAt('client').toFixed(2)}, total ${median(purchases.map((p) => p.cpu.server + p.cpu.pg + p.cpu.client)).toFixed(2)}`,
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
      const { cpu } = await withCpu(read, () =>
        drive(items.length, 16, async (i) => ((out[i] = await call(items[i]!)), true)),
      );
      stepCpu[name]!.push(cpu);
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
