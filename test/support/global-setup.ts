/** Starts one embedded PostgreSQL and finds a headless Chromium for the whole test run; each test file creates its own database on it. */
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedPostgresError, startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/storage/embedded-postgres.ts';
import { resolveChromium } from './chromium.ts';

const TEST_SERVER = 'set TESSERA_TEST_DATABASE_URL to a PostgreSQL server whose user may create databases';

let handle: EmbeddedPostgresHandle | undefined;
let dir: string | undefined;
let secretDir: string | undefined;

/** Says what went wrong in one sentence and ends the run: a stack trace would only hide the remedy. */
function stop(message: string): never {
  process.stderr.write(`\nnpm test cannot start: ${message}\n\n`);
  if (dir) rmSync(dir, { recursive: true, force: true });
  process.exit(1);
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
  }
  // The servers' key files (TESSERA_SECRET_FILE, one per test database: test/support/database.ts), removed at the end.
  secretDir = mkdtempSync(join(tmpdir(), 'tessera-test-secrets-'));
  process.env.TESSERA_TEST_SECRET_DIR = secretDir;
  // Once per run: the browser test files read TESSERA_CHROMIUM ('' when there is none: they fail saying how to get one).
  process.env.TESSERA_CHROMIUM ??= await resolveChromium();
}

export async function globalTeardown(): Promise<void> {
  await handle?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (secretDir) rmSync(secretDir, { recursive: true, force: true });
}
