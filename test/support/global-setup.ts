/**
 * Starts one embedded PostgreSQL and finds a headless Chromium for the whole test run; each test file creates its own
 * database on it. The migrations run once, into a template database that every migrated test database is copied from
 * (CREATE DATABASE … TEMPLATE … STRATEGY FILE_COPY copies its files: about half the time of migrating each database).
 */
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EmbeddedPostgresError,
  startEmbeddedPostgres,
  type EmbeddedPostgresHandle,
} from '../../src/storage/embedded-postgres.ts';
import pg from 'pg';
import { resolveChromium } from './chromium.ts';
import { ensureConsoleBuilt } from '../../src/console-pages/build.ts';
import { createTemplateDatabase, dropDatabase } from './database.ts';

const TEST_SERVER = 'set TESSERA_TEST_DATABASE_URL to a PostgreSQL server whose user may create databases';

let handle: EmbeddedPostgresHandle | undefined;
let dir: string | undefined;
let secretDir: string | undefined;
let template: string | undefined;

/** Says what went wrong in one sentence and ends the run: a stack trace would only hide the remedy. */
function stop(message: string): never {
  process.stderr.write(`\nnpm test cannot start: ${message}\n\n`);
  if (dir) rmSync(dir, { recursive: true, force: true });
  process.exit(1);
}

/**
 * The run's own throw-away server need not force its writes to disk: fsync protects against an operating-system
 * crash, not a killed PostgreSQL or server process (the page cache keeps the writes), and the test files make many
 * small commits on a busy shared disk. Servers a test starts itself keep the defaults.
 */
async function withoutFsync(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('alter system set fsync = off');
    await client.query('alter system set full_page_writes = off');
    await client.query('select pg_reload_conf()');
  } finally {
    await client.end();
  }
}

export async function globalSetup(): Promise<void> {
  if (!process.env.TESSERA_TEST_DATABASE_URL) {
    try {
      dir = mkdtempSync(join(tmpdir(), 'tessera-test-'));
      chmodSync(dir, 0o755);
      handle = await startEmbeddedPostgres(dir);
    } catch (err) {
      stop(
        err instanceof EmbeddedPostgresError
          ? err.message.replace('set DATABASE_URL to use a PostgreSQL server', TEST_SERVER)
          : `the embedded PostgreSQL did not start (${(err as Error).message}): ${TEST_SERVER}.`,
      );
    }
    process.env.TESSERA_TEST_DATABASE_URL = handle.url;
    await withoutFsync(handle.url);
  }
  // The servers' key files (TESSERA_SECRET_FILE, one per test database: test/support/database.ts), removed at the end.
  secretDir = mkdtempSync(join(tmpdir(), 'tessera-test-secrets-'));
  process.env.TESSERA_TEST_SECRET_DIR = secretDir;
  template = await createTemplateDatabase();
  process.env.TESSERA_TEST_TEMPLATE_DATABASE = template;
  // Once per run: the browser test files read TESSERA_CHROMIUM ('' when there is none: they fail saying how to get
  // one).
  process.env.TESSERA_CHROMIUM ??= await resolveChromium();
  // The console's bundle, built once for the run (found by content hash when the sources have not changed).
  await ensureConsoleBuilt();
}

export async function globalTeardown(): Promise<void> {
  // On a server of the caller's (TESSERA_TEST_DATABASE_URL) the template is dropped; the embedded one goes with its
  // directory.
  if (template && !handle) await dropDatabase(template).catch(() => undefined);
  await handle?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (secretDir) rmSync(secretDir, { recursive: true, force: true });
}
