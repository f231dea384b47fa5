/**
 * A pristine cluster made once per machine (initdb, plus the `tessera` database with every migration applied) and
 * copied into each new data directory instead of running initdb and the migrations there: together they take seconds,
 * the copy a fraction of one (docs/performance.md, "Start time"). The template is keyed by the migrations' sources, so
 * a changed migration list makes a new one. The copy's superuser password is the template's; the caller changes it to
 * the data directory's own before anything else connects.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { openDir, type Owner } from './embedded-postgres-binaries.ts';
import { freePort, run, startServer } from './embedded-postgres-process.ts';
import { copyTree, makeSpareClusterInBackground, takeSpareCluster } from './embedded-postgres-spare.ts';

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

/** The migrations whose sources key the template (their index and every migration file). */
export const MIGRATIONS_DIR = join(import.meta.dirname, 'migrations');

/** A template outlives its successor by this much, for a start still copying it; then it is removed. */
const OLD_TEMPLATE_GRACE_MS = 60 * 60 * 1000;

/**
 * The hash of the migrations in `dir` (every file's name and contents, in name order): a template made with one key
 * has exactly those migrations applied. Reading some forty small files costs a few milliseconds, on a new cluster only.
 */
export function migrationsKey(dir: string = MIGRATIONS_DIR): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(dir).sort())
    hash
      .update(`${name}\0`)
      .update(readFileSync(join(dir, name)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** The prefix of every template for `binaries`: keyed by the binaries' path and initdb's arguments. */
function templatePrefix(binaries: string): string {
  const key = createHash('sha256')
    .update(`${binaries}\n${INITDB_ARGS.join(' ')}\nv1`)
    .digest('hex')
    .slice(0, 16);
  return `pg-template-${key}-`;
}

/** Removes the templates for `binaries` other than `keep` that were made over an hour ago (older migration lists). */
function removeOldTemplates(baseDir: string, binaries: string, keep: string): void {
  const prefix = templatePrefix(binaries);
  for (const name of readdirSync(baseDir)) {
    const dir = join(baseDir, name);
    const before = name === prefix.slice(0, -1); // a template from before the migrations were in it
    if (!(before || name.startsWith(prefix)) || name.includes('.tmp-') || dir === keep) continue;
    try {
      if (Date.now() - statSync(join(dir, 'password')).mtimeMs > OLD_TEMPLATE_GRACE_MS)
        rmSync(dir, { recursive: true, force: true });
    } catch {
      /* another process removed it, or it is not a template */
    }
  }
}

/** Applies every migration to the template's `tessera` database at `url` (the ORM is loaded only to make one). */
async function migrateTemplate(url: string): Promise<void> {
  const { Database } = await import('./database.ts');
  const db = await Database.open(url, { poolMax: 1 });
  try {
    await db.migrate();
  } finally {
    await db.close();
  }
}

/**
 * Makes a template in `dir`: initdb, then one start to create the `tessera` database and apply the migrations, stopped
 * cleanly.
 */
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
      await migrateTemplate(`postgres://${TEMPLATE_USER}:${password}@127.0.0.1:${port}/tessera`);
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
 * Fills `pgDir` (absent or empty) with a copy of the template for `binaries` and the current migrations kept under
 * `baseDir`, making the template first when there is none (`buildMs` says how long that took, and templates
 * of older migration lists are removed). Returns the template's superuser password, which the copy has until the caller
 * changes it. With `spare`, the template's spare cluster is taken when there is one (`spare: true` in the result) and
 * the next is made in the background (`spareMade`; src/storage/embedded-postgres-spare.ts).
 */
export async function copyClusterTemplate(
  pgDir: string,
  baseDir: string,
  binaries: string,
  owner: Owner | undefined,
  log: (m: unknown) => void,
  spare = false,
): Promise<{ password: string; buildMs?: number; spare?: boolean; spareMade?: Promise<void> }> {
  const dir = join(baseDir, `${templatePrefix(binaries)}${migrationsKey()}`);
  let buildMs: number | undefined;
  if (!existsSync(join(dir, 'password'))) {
    const at = performance.now();
    openDir(baseDir);
    await makeTemplate(dir, binaries, owner, log);
    removeOldTemplates(baseDir, binaries, dir);
    buildMs = Math.round(performance.now() - at);
  }
  rmSync(pgDir, { recursive: true, force: true });
  const took = spare && takeSpareCluster(dir, pgDir);
  if (!took) await copyTree(join(dir, 'pg'), pgDir, owner);
  const spareMade = spare ? makeSpareClusterInBackground(dir, owner) : undefined;
  return { password: readFileSync(join(dir, 'password'), 'utf8'), buildMs, spare: took, spareMade };
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
