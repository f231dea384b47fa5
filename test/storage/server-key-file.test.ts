/**
 * The generated server key file when several processes start at once on a fresh machine (src/storage/server-secret.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openTestDatabase } from '../support/database.ts';
import type { Database } from '../../src/storage/database.ts';

const run = promisify(execFile);
let db: Database;
let url: string;
let dir: string;
before(async () => {
  ({ db, url } = await openTestDatabase());
  dir = mkdtempSync(join(tmpdir(), 'tessera-key-file-'));
});
after(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * One process that opens the database and its server secret from KEY_FILE, and prints the secret (this test's only).
 */
const SCRIPT = `
import { Database } from ${JSON.stringify(new URL('../../src/storage/database.ts', import.meta.url).href)};
import { openServerSecret } from ${JSON.stringify(new URL('../../src/storage/server-secret.ts', import.meta.url).href)};
const db = await Database.open(process.env.DB_URL, { poolMax: 1 });
try {
  const { secret } = await openServerSecret(db, { configured: undefined, keyFilePath: process.env.KEY_FILE });
  process.stdout.write(secret);
} finally {
  await db.close();
}`;

test('six processes starting at once on a fresh machine create one key file, whole, and all use its secret', async () => {
  const keyFile = join(dir, 'data', 'server-secret');
  const outputs = await Promise.all(
    Array.from({ length: 6 }, () =>
      run(process.execPath, ['--input-type=module', '-e', SCRIPT], {
        env: { ...process.env, DB_URL: url, KEY_FILE: keyFile },
        timeout: 240_000,
      }),
    ),
  );
  const secrets = new Set(outputs.map((o) => o.stdout));
  assert.equal(secrets.size, 1, 'every process uses the same secret');
  const [secret] = [...secrets];
  assert.ok(secret && secret.length >= 32);
  assert.equal(readFileSync(keyFile, 'utf8').trim(), secret);
  assert.equal(statSync(keyFile).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(join(dir, 'data')), ['server-secret'], 'no temporary file is left behind');
});
