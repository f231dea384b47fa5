/** A fresh, migrated database per test file on the run's shared PostgreSQL server. */
import { randomBytes } from 'node:crypto';
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
