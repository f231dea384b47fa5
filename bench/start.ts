/**
 * Start time, measured (docs/performance.md, "Start time"): spawns the real server as `npm start` does and times
 * spawn → the first `/readyz` 200, cold (a new data directory: a cluster, migrations, demo seed) and warm (the same
 * directory again), and the same on an already-running PostgreSQL (DATABASE_URL: a new database, then the same one
 * again). The server's debug `start phase` lines say where the time goes, and its CPU time is read when it is ready;
 * the console bundle's source hash, computed at every start, is timed here too. Before the starts, the server bundle
 * (src/server-bundle.ts) is built afresh `--runs` times into a directory of its own, to time what a first start after
 * a change of the sources pays, and then for the current sources where `npm start` looks for it, so that no start
 * timed here builds it. Median of `--runs` (default 3) per case. Usage: npm run bench:start [-- --runs 3 --no-url]
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { consoleSourceHash } from '../src/console-pages/build.ts';
import { startEmbeddedPostgres } from '../src/storage/embedded-postgres.ts';
import { SERVER_NODE_ARGS } from '../test/support/server-process.ts';

const { values } = parseArgs({ options: { runs: { type: 'string' }, 'no-url': { type: 'boolean' } } });
const RUNS = Number(values.runs ?? 3);
const ROOT = join(import.meta.dirname, '..');
/** Linux's USER_HZ, the unit of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = 100;

interface Start {
  /** Spawn → the first `/readyz` answering 200. */
  readyMs: number;
  /** Spawn → the start banner on stdout. */
  bannerMs: number;
  /** The server process's CPU time (user + system) when it was ready: steadier than wall time on a busy machine. */
  cpuMs: number;
  /** The server's own marks: phase → milliseconds. */
  phases: Record<string, number>;
}

/** Runs `npm start`'s command with `env` until `/readyz` answers 200, then stops it; throws if it does not start. */
async function timeStart(env: Record<string, string>): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, [...SERVER_NODE_ARGS, join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = once(child, 'exit');
  try {
    const { url, bannerMs } = await new Promise<{ url: string; bannerMs: number }>((ok, fail) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /Tessera is running at (\S+)/.exec(out);
        if (m) ok({ url: m[1]!, bannerMs: performance.now() - started });
      });
      void exited.then(() => fail(new Error(`the server exited before it was ready:\n${err.slice(-2000)}`)));
    });
    for (;;) {
      const res = await fetch(`${url}/readyz`).catch(() => undefined);
      await res?.body?.cancel();
      if (res?.status === 200) break;
    }
    const readyMs = performance.now() - started;
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const cpuMs = ((Number(stat[11]) + Number(stat[12])) * 1000) / CLOCK_TICKS;
    const phases: Record<string, number> = {};
    for (const line of err.split('\n')) {
      if (!line.includes('"startPhase"')) continue;
      const mark = JSON.parse(line) as { startPhase: string; ms: number };
      phases[mark.startPhase] = mark.ms;
    }
    return { readyMs, bannerMs, cpuMs, phases };
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

const ms = (runs: Start[], of: (r: Start) => number): number => Math.round(median(runs.map(of)));

function report(name: string, runs: Start[]): void {
  const phases = [...new Set(runs.flatMap((r) => Object.keys(r.phases)))];
  const breakdown = phases.map((p) => `${p} ${median(runs.map((r) => r.phases[p] ?? 0))}`).join(', ');
  const all = runs.map((r) => Math.round(r.readyMs)).join('/');
  process.stdout.write(
    `${name.padEnd(28)} ready ${ms(runs, (r) => r.readyMs)} ms (runs ${all}), banner ${ms(runs, (r) => r.bannerMs)} ` +
      `ms, server CPU ${ms(runs, (r) => r.cpuMs)} ms\n${''.padEnd(29)}${breakdown}\n`,
  );
}

const temp = mkdtempSync(join(tmpdir(), 'tessera-bench-start-'));
chmodSync(temp, 0o755); // as root the embedded PostgreSQL runs as "postgres", which must reach the data directory
const base = { LOG_LEVEL: 'debug' };
const results: Record<string, Start[]> = {};
const add = (name: string, s: Start) => (results[name] ??= []).push(s);
process.stdout.write(`bench:start on ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}, ${RUNS} runs\n`);
/** Runs `node src/server-bundle.ts` (what `npm start` runs when the bundle is missing); returns its wall time. */
function buildBundle(env: Record<string, string> = {}): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, [join(ROOT, 'src', 'server-bundle.ts')], { env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`the server bundle was not built:\n${r.stderr.toString().slice(-2000)}`);
  return performance.now() - t;
}
const bundled = existsSync(join(ROOT, 'src', 'server-bundle.ts'));
if (bundled) {
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
  const builds = Array.from({ length: RUNS }, () => {
    const cache = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'tessera-server-bench-'));
    try {
      return buildBundle({ TESSERA_BUNDLE_CACHE: cache });
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });
  buildBundle();
  process.stdout.write(
    `server bundle: a fresh build (a first start after the sources changed) ${Math.round(median(builds))} ms ` +
      `(runs ${builds.map(Math.round).join('/')}); built for the current sources before the starts\n`,
  );
}
try {
  for (let run = 0; run < RUNS; run++) {
    const dataDir = join(temp, `data-${run}`);
    add('embedded, cold (new dir)', await timeStart({ ...base, TESSERA_DATA_DIR: dataDir }));
    add('embedded, warm', await timeStart({ ...base, TESSERA_DATA_DIR: dataDir }));
  }
  if (!values['no-url']) {
    const pg = await startEmbeddedPostgres(join(temp, 'shared'));
    try {
      for (let run = 0; run < RUNS; run++) {
        const env = {
          ...base,
          DATABASE_URL: await pg.createDatabase(`start_${run}`),
          TESSERA_DATA_DIR: join(temp, `url-${run}`),
        };
        add('DATABASE_URL, new database', await timeStart(env));
        add('DATABASE_URL, warm', await timeStart(env));
      }
    } finally {
      await pg.stop();
    }
  }
  const hashRuns = Array.from({ length: 5 }, () => {
    const t = performance.now();
    consoleSourceHash();
    return performance.now() - t;
  });
  for (const [name, runs] of Object.entries(results)) report(name, runs);
  const built = existsSync(join(ROOT, 'node_modules', '.cache', 'tessera-console', consoleSourceHash(), 'console.js'));
  process.stdout.write(
    `console bundle: source hash ${median(hashRuns).toFixed(1)} ms at each start (inside "create app"); ` +
      `${built ? 'built' : 'NOT built (a start builds it in the background)'} for the current sources\n`,
  );
} finally {
  rmSync(temp, { recursive: true, force: true });
}
