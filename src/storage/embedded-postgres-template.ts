/**
 * A pristine cluster made once per machine (initdb, plus the empty `tessera` database) and copied into each new data
 * directory instead of running initdb there: initdb takes seconds, the copy a fraction of one (docs/performance.md,
 * "Start time"). The copy's superuser password is the template's; the caller changes it to the data directory's own
 * before anything else connects.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { openDir, type Owner } from './embedded-postgres-binaries.ts';
import { freePort, run, startServer } from './embedded-postgres-process.ts';

/** The superuser of the template, and so of every cluster copied from it (a data directory's default user). */
export const TEMPLATE_USER = 'tessera';

/** A finished template: its cluster directory and its superuser's password. */
export interface ClusterTemplate {
  pgDir: string;
  password: string;
}

/** initdb's arguments besides the directory, user and password file: every embedded cluster is made the same way. */
export const INITDB_ARGS: readonly string[] = [
  '--auth=scram-sha-256',
  '--encoding=UTF8',
  '--locale=C',
  '--locale-provider=builtin',
  '--builtin-locale=C.UTF-8',
];

/** The template directory for `binaries` under `baseDir`: keyed by the binaries' path and initdb's arguments. */
function templateDir(baseDir: string, binaries: string): string {
  const key = createHash('sha256')
    .update(`${binaries}\n${INITDB_ARGS.join(' ')}\nv1`)
    .digest('hex')
    .slice(0, 16);
  return join(baseDir, `pg-template-${key}`);
}

/**
 * Copies a directory tree, owned by `owner` when given (we are root and it runs as "postgres"). Asynchronous, so that
 * `tessera serve` goes on loading its modules meanwhile.
 */
async function copyTree(from: string, to: string, owner: Owner | undefined): Promise<void> {
  await cp(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  chmodSync(to, 0o700); // PostgreSQL refuses a data directory others may enter
  if (!owner) return;
  const chownTree = (dir: string) => {
    chownSync(dir, owner.uid, owner.gid);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) chownTree(path);
      else chownSync(path, owner.uid, owner.gid);
    }
  };
  chownTree(to);
}

/** Makes a template in `dir`: initdb, then one start to create the `tessera` database, stopped cleanly. */
async function makeTemplate(dir: string, binaries: string, owner: Owner | undefined, log: (m: unknown) => void) {
  const tmp = mkdtempSync(`${dir}.tmp-`);
  try {
    const pgDir = join(tmp, 'pg');
    mkdirSync(pgDir, { mode: 0o700 });
    const password = randomBytes(18).toString('base64url');
    const pwFile = join(tmp, 'initdb-password');
    writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
    if (owner) for (const p of [tmp, pgDir, pwFile]) chownSync(p, owner.uid, owner.gid);
    const initdb = [`--pgdata=${pgDir}`, `--username=${TEMPLATE_USER}`, `--pwfile=${pwFile}`, ...INITDB_ARGS];
    await run(join(binaries, 'bin', 'initdb'), initdb, owner, log);
    rmSync(pwFile);
    const port = await freePort();
    const server = await startServer(join(binaries, 'bin', 'postgres'), pgDir, port, owner, log);
    try {
      const url = `postgres://${TEMPLATE_USER}:${password}@127.0.0.1:${port}/postgres`;
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => undefined);
      await client.connect();
      try {
        await client.query('create database tessera');
      } finally {
        await client.end();
      }
    } finally {
      const exited = new Promise((ok) => server.once('exit', ok));
      server.kill('SIGINT'); // a fast shutdown: a clean cluster, no postmaster.pid left in the copy
      await exited;
    }
    writeFileSync(join(tmp, 'password'), password, { mode: 0o600 });
    if (owner) chownSync(tmp, 0, 0);
    try {
      renameSync(tmp, dir);
    } catch (err) {
      if (!existsSync(join(dir, 'password'))) throw err; // else another process finished one first: the same template
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Fills `pgDir` (absent or empty) with a copy of the template for `binaries` kept under `baseDir`, making the
 * template first when there is none. Returns the template's superuser password, which the copy has until the caller
 * changes it.
 */
export async function copyClusterTemplate(
  pgDir: string,
  baseDir: string,
  binaries: string,
  owner: Owner | undefined,
  log: (m: unknown) => void,
): Promise<string> {
  const dir = templateDir(baseDir, binaries);
  if (!existsSync(join(dir, 'password'))) {
    openDir(baseDir);
    await makeTemplate(dir, binaries, owner, log);
  }
  rmSync(pgDir, { recursive: true, force: true });
  await copyTree(join(dir, 'pg'), pgDir, owner);
  return readFileSync(join(dir, 'password'), 'utf8');
}

/** Connects with the template's password and sets the data directory's own (the copy answers to no other). */
export async function takeOverCopiedCluster(port: number, user: string, from: string, to: string): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, user, password: from, database: 'postgres' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`alter role ${client.escapeIdentifier(user)} password ${client.escapeLiteral(to)}`);
  } finally {
    await client.end();
  }
}
