/** Starts one embedded PostgreSQL for the whole test run; each test file creates its own database on it. */
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../../src/storage/embedded-postgres.ts';

let handle: EmbeddedPostgresHandle | undefined;
let dir: string | undefined;

export async function globalSetup(): Promise<void> {
  if (process.env.TESSERA_TEST_DATABASE_URL) return;
  dir = mkdtempSync(join(tmpdir(), 'tessera-test-'));
  chmodSync(dir, 0o755);
  handle = await startEmbeddedPostgres(dir);
  process.env.TESSERA_TEST_DATABASE_URL = handle.url;
}

export async function globalTeardown(): Promise<void> {
  await handle?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
