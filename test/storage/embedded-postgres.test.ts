import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { startServerProcess } from '../support/server-process.ts';
import { restClient } from '../support/rest.ts';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-embedded-'));
  chmodSync(dir, 0o755);
  return dir;
}

function pidOf(dataDir: string): number {
  return Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

test('the embedded database keeps data across restarts and survives a killed server process', async () => {
  const dir = tempDir();
  try {
    const first = await startServerProcess({ TESSERA_DATA_DIR: dir });
    const demo = JSON.parse(readFileSync(join(dir, 'demo.json'), 'utf8'));
    const api = (url: string) => restClient(url, demo.apiKey);
    const created = await api(first.url).post('/v1/integration/pools', { merchantId: demo.shopId, capacity: 7, title: 'Kept' });
    assert.equal(created.status, 201);
    const orphan = pidOf(dir);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const second = await startServerProcess({ TESSERA_DATA_DIR: dir });
    try {
      const pools = await api(second.url).get(`/v1/integration/pools?merchantId=${demo.shopId}`);
      assert.equal(pools.status, 200);
      assert.ok(pools.body.pools.some((p: { id: string }) => p.id === created.body.id), 'data survived the restart');
      assert.equal(alive(orphan), false, 'the orphaned server was stopped and replaced');
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('as root, a data directory the unprivileged database user cannot reach gives a clear error naming the fix', () => {
  assert.equal(userInfo().uid, 0, 'this workplace and CI run as root; the embedded server then runs as "postgres"');
  const dir = tempDir();
  try {
    const locked = join(dir, 'locked');
    mkdirSync(locked, { mode: 0o700 });
    chmodSync(locked, 0o700);
    const r = spawnSync(process.execPath, [CLI, 'migrate'], {
      env: { PATH: process.env.PATH ?? '', TESSERA_DATA_DIR: join(locked, 'data'), LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /cannot reach/);
    assert.match(r.stderr, /TESSERA_DATA_DIR|DATABASE_URL/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('invalid configuration stops start-up with a message naming the variable', () => {
  const r = spawnSync(process.execPath, [CLI, 'serve'], {
    env: { PATH: process.env.PATH ?? '', PORT: 'eighty', DATABASE_URL: 'mysql://nope' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /PORT/);
  assert.match(r.stderr, /DATABASE_URL/);
});
