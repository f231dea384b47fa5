/**
 * The embedded PostgreSQL's process: running initdb, starting the server, a free port, a server left behind by
 * another or a killed process, stopping on exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { EmbeddedPostgresError, type Owner } from './embedded-postgres-binaries.ts';

const START_TIMEOUT_MS = 120_000;

export async function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => ok(port));
    });
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
  }
}

function cmdlineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

function parentOf(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
  } catch {
    return 0;
  }
}

/**
 * Looks at a postmaster.pid in the data directory. A server still owned by another live Tessera
 * process is shared (its port is returned). One orphaned by a killed process is stopped; a pid
 * file naming a dead process is removed. Returns the port to share, or undefined to start our own.
 */
export async function inspectExistingServer(pgDir: string): Promise<number | undefined> {
  const pidFile = join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const fields = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(fields[0]);
  if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) {
    if (!(cmdlineOf(pid).includes('postgres') && cmdlineOf(pid).includes(pgDir))) {
      throw new EmbeddedPostgresError(
        `${pidFile} names process ${pid}, which is not this data directory's PostgreSQL. Stop that process or remove the file.`,
      );
    }
    const parent = parentOf(pid);
    if (parent > 1 && pidAlive(parent) && /\bnode\b|tessera/.test(cmdlineOf(parent))) {
      const port = Number(fields[3]);
      if (Number.isInteger(port) && port > 0) return port;
    }
    process.kill(pid, 'SIGINT');
    for (let i = 0; i < 100 && pidAlive(pid); i++) await delay(100);
    if (pidAlive(pid)) throw new EmbeddedPostgresError(`The PostgreSQL server left running (pid ${pid}) did not stop.`);
  }
  rmSync(pidFile, { force: true });
  return undefined;
}

/** If the process exits without stopping the server (a crash, process.exit), ask it to shut down fast. */
export function stopOnExit(pgDir: string): void {
  process.once('exit', () => {
    try {
      const pid = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) process.kill(pid, 'SIGINT');
    } catch {
      /* already stopped */
    }
  });
}

/**
 * Runs `bin` (as `owner` when given) to completion; rejects with its exit status (the caller adds its last output
 * lines).
 */
export function run(bin: string, args: string[], owner: Owner | undefined, onLog: (m: unknown) => void): Promise<void> {
  return new Promise((ok, fail) => {
    const child = spawn(bin, args, { ...owner, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', onLog);
    child.stderr.on('data', onLog);
    child.once('error', fail);
    child.once('close', (code, signal) =>
      code === 0 ? ok() : fail(new Error(`${bin} exited with ${code ?? signal}`)),
    );
  });
}

/** Starts `postgres` and resolves once it accepts connections; an early exit or a spawn error rejects. */
export function startServer(
  bin: string,
  pgDir: string,
  port: number,
  owner: Owner | undefined,
  onLog: (m: unknown) => void,
): Promise<ChildProcess> {
  const args = [
    '-D',
    pgDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=200',
  ];
  const child = spawn(bin, args, { ...owner, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((ok, fail) => {
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGINT');
      fail(new Error(`not ready after ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    const done = (err?: Error) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      if (err) fail(err);
      else ok(child);
    };
    const onExit = (code: number | null, signal: string | null) =>
      done(new Error(`postgres exited with ${code ?? signal}`));
    child.stderr!.on('data', (chunk: Buffer) => {
      onLog(chunk);
      seen = (seen + chunk.toString()).slice(-200);
      if (seen.includes('ready to accept connections')) {
        seen = '';
        done();
      }
    });
    child.once('error', (err) => done(err));
    child.once('exit', onExit);
  });
}
