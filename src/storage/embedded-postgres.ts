/**
 * The embedded PostgreSQL used when DATABASE_URL is unset: a real server in a data directory that
 * keeps its data across restarts, runs as an unprivileged user when we are root (from a copy of the
 * binaries, and a cluster directory, that user can reach), and recovers from a stale server left
 * behind by a killed process.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { userInfo } from 'node:os';
import pg from 'pg';
import {
  EmbeddedPostgresError,
  REMEDY,
  packagedNativeDir,
  postgresUser,
  reachableBinaries,
} from './embedded-postgres-binaries.ts';
import { clusterDirFor } from './embedded-postgres-location.ts';
import { freePort, inspectExistingServer, run, startServer, stopOnExit } from './embedded-postgres-process.ts';
import {
  copyClusterTemplate,
  INITDB_ARGS,
  TEMPLATE_USER,
  takeOverCopiedCluster,
} from './embedded-postgres-template.ts';

export { EmbeddedPostgresError };

export interface EmbeddedPostgresHandle {
  /** A postgres:// URL for the `tessera` database (or `database` when given). */
  url: string;
  port: number;
  /** True when another live Tessera process already ran the server on this data directory and we joined it. */
  shared: boolean;
  /** Where the cluster lives: `<dataDir>/pg`, or a directory the postgres user can reach (see `notices`). */
  clusterDir: string;
  /**
   * What a person should know about where things went (a relocated cluster, a copy of the binaries); log them at info
   * level.
   */
  notices: string[];
  /** Milliseconds each step of this start took (`initdb` only on a new cluster), for the start-time breakdown. */
  timings: Record<string, number>;
  /** Stops the server (data is kept). */
  stop(): Promise<void>;
  /** Creates another database on this server and returns its URL (tests use one per file). */
  createDatabase(name: string): Promise<string>;
  /** When this start took the template's spare cluster or copied it: the next spare made (`spareCluster`). */
  spareMade?: Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /**
   * PostgreSQL's installation (the directory holding bin/, lib/ and share/). Default: `native/` of the
   * `@embedded-postgres/<platform>-<arch>` package that `embedded-postgres` installs.
   */
  nativeDir?: string;
  /**
   * Only used as root: where a copy of the binaries the postgres user can reach is kept
   * (`postgres-<version>/`), and clusters of data directories it cannot reach (`clusters/<hash>/pg`).
   * Default `/var/lib/tessera`.
   */
  systemDir?: string;
  /**
   * Where the pristine cluster copied into each new data directory is kept (made once, by initdb, on first use);
   * `false` runs initdb for every new cluster. Default `node_modules/.cache/tessera`, as root `<systemDir>/templates`.
   */
  templatesDir?: string | false;
  /**
   * Keep a spare copy of the template beside it, so that a new data directory takes it by a rename
   * (src/storage/embedded-postgres-spare.ts). Default: on with the default `templatesDir`, off with one given.
   */
  spareCluster?: boolean;
}

interface Credentials {
  user: string;
  password: string;
}

function loadCredentials(dataDir: string): Credentials {
  const file = join(dataDir, 'pg-credentials.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Credentials;
  const creds = { user: 'tessera', password: randomBytes(18).toString('base64url') };
  writeFileSync(file, JSON.stringify(creds), { mode: 0o600 });
  return creds;
}

/**
 * Adds the execute bits a package manager may have dropped (as embedded-postgres did); a read-only install is left
 * alone.
 */
function ensureExecutable(bin: string): void {
  try {
    const mode = statSync(bin).mode;
    if ((mode & 0o555) !== 0o555) chmodSync(bin, mode | 0o555);
  } catch {
    /* spawning it reports what is wrong */
  }
}

/**
 * Starts (initialising on first use) the embedded server of `dataDir` (normally under `dataDir/pg`) and
 * ensures the `tessera` database exists. `log` receives the server's own messages. Every failure is an
 * EmbeddedPostgresError whose message says what to do.
 */
export async function startEmbeddedPostgres(
  dataDirIn: string,
  log: (line: string) => void = () => undefined,
  opts: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgresHandle> {
  const dataDir = resolve(dataDirIn);
  const notices: string[] = [];
  const asRoot = userInfo().uid === 0;
  const systemDir = resolve(opts.systemDir ?? '/var/lib/tessera');
  mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  const hadCredentials = existsSync(join(dataDir, 'pg-credentials.json'));
  const pgDir = await clusterDirFor(dataDir, asRoot, systemDir, hadCredentials, notices);
  const owner = asRoot ? postgresUser() : undefined;
  const nativeDir = opts.nativeDir ? resolve(opts.nativeDir) : await packagedNativeDir();
  const binaries = asRoot ? reachableBinaries(nativeDir, systemDir, notices) : nativeDir;
  const creds = loadCredentials(dataDir);
  const shared = existsSync(join(pgDir, 'PG_VERSION')) ? await inspectExistingServer(pgDir) : undefined;
  const port = shared ?? (await freePort());
  const lines: string[] = [];
  const onLog = (m: unknown) => {
    for (const line of String(m).split('\n')) {
      const text = line.trim();
      if (!text) continue;
      lines.push(text);
      if (lines.length > 50) lines.shift();
      log(text);
    }
  };
  let server: ChildProcess | undefined;
  const timings: Record<string, number> = {};
  let templatePassword: string | undefined;
  let spareMade: Promise<void> | undefined;
  const templatesDir =
    opts.templatesDir ??
    (asRoot
      ? join(systemDir, 'templates')
      : join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'tessera'));
  let at = performance.now();
  const lap = (step: string) => {
    const now = performance.now();
    timings[step] = Math.round(now - at);
    at = now;
  };
  for (const bin of ['initdb', 'postgres']) ensureExecutable(join(binaries, 'bin', bin));
  try {
    // A cluster copied from the template whose password was not changed yet (the process died) is made anew.
    const copying = join(dataDir, 'pg-copying');
    if (!existsSync(join(pgDir, 'PG_VERSION')) || (existsSync(copying) && shared === undefined)) {
      if (templatesDir && creds.user === TEMPLATE_USER) {
        try {
          writeFileSync(copying, '');
          const spare = opts.spareCluster ?? opts.templatesDir === undefined;
          const copied = await copyClusterTemplate(pgDir, templatesDir, binaries, owner, onLog, spare);
          templatePassword = copied.password;
          spareMade = copied.spareMade;
          lap('template copy');
          if (copied.spare) timings['template copy: the spare taken'] = timings['template copy']!;
          if (copied.buildMs !== undefined) timings['template build (in the copy)'] = copied.buildMs;
        } catch (err) {
          log(`The cluster template could not be used (${(err as Error).message}): running initdb.`);
          rmSync(copying, { force: true });
        }
      }
      if (templatePassword === undefined) {
        rmSync(pgDir, { recursive: true, force: true });
        mkdirSync(pgDir, { recursive: true, mode: 0o700 });
        // initdb runs as the server's user: the password file must be readable by it, and by no one else.
        const pwFile = join(dirname(pgDir), `.pg-password-${randomBytes(6).toString('hex')}`);
        writeFileSync(pwFile, `${creds.password}\n`, { mode: 0o600 });
        if (owner) {
          chownSync(pgDir, owner.uid, owner.gid);
          chownSync(pwFile, owner.uid, owner.gid);
        }
        try {
          await run(
            join(binaries, 'bin', 'initdb'),
            [`--pgdata=${pgDir}`, `--username=${creds.user}`, `--pwfile=${pwFile}`, ...INITDB_ARGS],
            owner,
            onLog,
          );
        } finally {
          rmSync(pwFile, { force: true });
        }
        lap('initdb');
      }
    }
    if (shared === undefined) {
      server = await startServer(join(binaries, 'bin', 'postgres'), pgDir, port, owner, onLog);
      stopOnExit(pgDir);
      lap('postgres start');
      if (templatePassword !== undefined) {
        await takeOverCopiedCluster(port, creds.user, templatePassword, creds.password).catch((err: unknown) => {
          server?.kill('SIGINT');
          throw err;
        });
        rmSync(join(dataDir, 'pg-copying'), { force: true });
        lap('password');
      }
    }
  } catch (err) {
    const output = lines.length ? `; its last words: ${lines.slice(-5).join(' | ')}` : '';
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL in ${pgDir} did not start (${(err as Error).message}${output}): ${REMEDY}.`,
    );
  }
  const base = `postgres://${encodeURIComponent(creds.user)}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}`;
  const createDatabase = async (name: string): Promise<string> => {
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new EmbeddedPostgresError(`Bad database name ${name}.`);
    const client = new pg.Client({ connectionString: `${base}/postgres` });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const exists = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (!exists.rowCount) await client.query(`create database ${name}`);
    } finally {
      await client.end();
    }
    return `${base}/${name}`;
  };
  const stop = async (): Promise<void> => {
    // A server shared with another live process is that process's to stop.
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    const exited = once(server, 'exit');
    server.kill('SIGINT');
    await exited;
  };
  try {
    const url = await createDatabase('tessera');
    lap('tessera database');
    return {
      url,
      port,
      shared: shared !== undefined,
      clusterDir: pgDir,
      notices,
      timings,
      stop,
      createDatabase,
      spareMade,
    };
  } catch (err) {
    await stop();
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL in ${pgDir} started but the tessera database could not be opened (${(err as Error).message}): ${REMEDY}.`,
    );
  }
}
