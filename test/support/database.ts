/** A fresh, migrated database per test file on the run's shared PostgreSQL server. */
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/storage/database.ts';

export function serverUrl(): string {
  const url = process.env.TESSERA_TEST_DATABASE_URL;
  if (!url) throw new Error('TESSERA_TEST_DATABASE_URL is not set: run tests through `npm test` (global setup starts PostgreSQL).');
  return url;
}

/** Creates an empty database and returns its URL. */
export async function createTestDatabase(): Promise<string> {
  const admin = new URL(serverUrl());
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  admin.pathname = `/${name}`;
  return admin.toString();
}

/**
 * A migrated Database on a fresh test database. The pool guard is on unless `guardPool: false`: code inside a
 * transaction that asks the pool for a second connection fails at once (`SecondConnectionError`, docs/performance.md).
 */
export async function openTestDatabase(opts: { guardPool?: boolean } = {}): Promise<{ db: Database; url: string }> {
  const url = await createTestDatabase();
  const db = await Database.open(url, { guardPool: opts.guardPool ?? true });
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

/** The environment a server on the test database `dbUrl` needs besides its own settings: the database and its key file. */
export function serverEnvFor(dbUrl: string): { DATABASE_URL: string; TESSERA_SECRET_FILE: string } {
  return { DATABASE_URL: dbUrl, TESSERA_SECRET_FILE: secretFileFor(dbUrl) };
}
