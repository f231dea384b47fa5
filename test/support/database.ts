/** A fresh, migrated database per test file on the run's shared PostgreSQL server. */
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/storage/database.ts';

export function serverUrl(): string {
  const url = process.env.TESSERA_TEST_DATABASE_URL;
  if (!url)
    throw new Error(
      'TESSERA_TEST_DATABASE_URL is not set: run tests through `npm test` (global setup starts PostgreSQL).',
    );
  return url;
}

/** Runs one statement on the server's maintenance database. */
async function onServer(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates an empty database (or a copy of `template`) and returns its URL. */
export async function createTestDatabase(template?: string): Promise<string> {
  const admin = new URL(serverUrl());
  const name = `t_${randomBytes(6).toString('hex')}`;
  await onServer(`create database ${name}${template ? ` template ${template} strategy file_copy` : ''}`);
  admin.pathname = `/${name}`;
  return admin.toString();
}

/**
 * Once per run (global setup): a database with every migration applied, closed so it can serve as a template (a
 * template must have no open connection while it is copied). Returns its name.
 */
export async function createTemplateDatabase(): Promise<string> {
  const url = new URL(await createTestDatabase());
  const db = await Database.open(url.toString());
  try {
    await db.migrate();
  } finally {
    await db.close();
  }
  return url.pathname.slice(1);
}

export async function dropDatabase(name: string): Promise<void> {
  await onServer(`drop database if exists ${name}`);
}

/**
 * A migrated Database on a fresh test database: a copy of the run's migrated template when global setup made one,
 * then `migrate()` as a start-up does (a no-op on the copy: it checks that nothing is pending). The pool guard is on
 * unless `guardPool: false`: code inside a transaction that asks the pool for a second connection fails at once
 * (`SecondConnectionError`, docs/performance.md).
 */
export async function openTestDatabase(opts: { guardPool?: boolean } = {}): Promise<{ db: Database; url: string }> {
  const url = await createTestDatabase(process.env.TESSERA_TEST_TEMPLATE_DATABASE);
  // Repeated statements as named prepared statements, as a server opens its database (src/storage/connect.ts).
  const db = await Database.open(url, { guardPool: opts.guardPool ?? true, preparedStatements: true });
  await db.migrate();
  return { db, url };
}

/**
 * The server key file of the servers on the database at `dbUrl` (TESSERA_SECRET_FILE): one per database, in the run's
 * key directory (global setup), so every server a test starts on one database, in process or not, shares its secret,
 * and no test touches the developer's `./.tessera`.
 */
export function secretFileFor(dbUrl: string): string {
  const u = new URL(dbUrl);
  const name = createHash('sha256').update(`${u.hostname}:${u.port}${u.pathname}`).digest('hex').slice(0, 16);
  return join(process.env.TESSERA_TEST_SECRET_DIR ?? join(tmpdir(), 'tessera-test-secrets'), `${name}.key`);
}

/**
 * The environment a server on the test database `dbUrl` needs besides its own settings: the database and its key file.
 */
export function serverEnvFor(dbUrl: string): { DATABASE_URL: string; TESSERA_SECRET_FILE: string } {
  return { DATABASE_URL: dbUrl, TESSERA_SECRET_FILE: secretFileFor(dbUrl) };
}

/** Runs one statement on its own connection to `url` (a cluster a test started itself) and returns its rows. */
export async function queryUrl(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}
