/** Starts `tessera serve` as a separate OS process on a database (for multi-process tests and benchmarks). */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { secretFileFor } from './database.ts';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything the server wrote on stderr so far (its log lines). */
  stderr(): string;
  /** Everything the server wrote on stdout so far (its start banner). */
  stdout(): string;
  stop(): Promise<void>;
}

const ROOT = join(import.meta.dirname, '..', '..');
/** What `node` runs for each way of starting the server there. */
const SCRIPT = { node: [join(ROOT, 'src', 'cli.ts'), 'serve'], 'npm start': [join(ROOT, 'src', 'main.ts')] };

/**
 * The Node.js flags the server ships with: `npm start` (package.json) and the `tessera` command (bin/tessera.js's first
 * line) pass the same, so a server a test or bench starts is the one users run (test/cli/server-flags.test.ts).
 */
export const SERVER_NODE_ARGS: readonly string[] = ['--min-semi-space-size=64'];

/**
 * Spawns the server with `env` (DATABASE_URL at least) on a free port and resolves once it prints its URL. `timeoutMs`
 * bounds a start on a loaded machine (an embedded PostgreSQL may have to initialise or recover first); a server that
 * did not start in time is killed, so nothing is left running. On a DATABASE_URL without a secret of its own, the
 * server uses the database's test key file, like every other server a test starts on it. `nodeArgs` go to Node.js
 * before the script: the server's own flags (SERVER_NODE_ARGS) by default; a bench adds its own after them, and the
 * last wins.
 */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 240_000,
  nodeArgs: readonly string[] = SERVER_NODE_ARGS,
  how: 'node' | 'tessera command' | 'npm start' = 'node',
): Promise<ServerProcess> {
  const secretGiven = env.TESSERA_SECRET || env.TESSERA_SECRET_FILE || env.TESSERA_DATA_DIR;
  if (env.DATABASE_URL && !secretGiven) env = { ...env, TESSERA_SECRET_FILE: secretFileFor(env.DATABASE_URL) };
  // 'tessera command': bin/tessera.js run as a program, as `npx tessera serve` runs it (its first line picks Node.js
  // and its flags; the project's node_modules/.bin comes first on PATH, as npm puts it). `nodeArgs` do not apply.
  // 'npm start': src/main.ts, as package.json's start script runs it (the server bundle; cli/server-bundle.test.ts).
  const [program, args, path] =
    how !== 'tessera command'
      ? [process.execPath, [...nodeArgs, ...SCRIPT[how]], process.env.PATH ?? '']
      : [join(ROOT, 'bin', 'tessera.js'), ['serve'], `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`];
  const child = spawn(program, args, {
    cwd: ROOT,
    env: {
      PATH: path,
      HOME: process.env.HOME ?? '/tmp',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RESERVE_MAX_WAIT_MS: '60000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let logged = '';
  child.stderr!.on('data', (d: Buffer) => {
    logged += d.toString();
    err = (err + d.toString()).slice(-4000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`server did not start in ${timeoutMs / 1000} s:\n${err}`));
    }, timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Tessera is running at (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before starting:\n${err}`));
    });
  });
  return {
    url,
    child,
    stderr: () => logged,
    stdout: () => out,
    async stop() {
      // A child killed by a signal has no exit code, only a signal code: it has exited all the same.
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
