import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdtempSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/storage/embedded-postgres.ts';
import { startServerProcess } from '../support/server-process.ts';
import { restClient } from '../support/rest.ts';
import { verifies } from '../support/requirements.ts';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');
const { initdb } = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as { initdb: string };
const PACKAGED_BIN = dirname(initdb);

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
    // The banner names the console and the demo owner who signs in there (issue #34, "Getting in").
    assert.match(first.stdout(), new RegExp(`Console {3}${first.url}/console `));
    assert.match(first.stdout(), /Owner {5}owner@demo\.tessera\.local {3}\(sign in at \S+\/console/);
    const api = (url: string) => restClient(url, demo.apiKey);
    const created = await api(first.url).post('/v1/integration/pools', {
      merchantId: demo.shopId,
      capacity: 7,
      title: 'Kept',
    });
    assert.equal(created.status, 201);
    const orphan = pidOf(dir);
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const second = await startServerProcess({ TESSERA_DATA_DIR: dir });
    try {
      const pools = await api(second.url).get(`/v1/integration/pools?merchantId=${demo.shopId}`);
      assert.equal(pools.status, 200);
      assert.ok(
        pools.body.pools.some((p: { id: string }) => p.id === created.body.id),
        'data survived the restart',
      );
      assert.equal(alive(orphan), false, 'the orphaned server was stopped and replaced');
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const asRoot = userInfo().uid === 0;
const ROOT_ONLY = { skip: !asRoot && 'as root only: the server then runs as the user "postgres"' };

/** A directory only its owner (root) may enter, as `mktemp -d` makes: the user "postgres" cannot pass through it. */
function lockedDir(parent: string): string {
  const locked = join(parent, 'locked');
  mkdirSync(locked, { mode: 0o700 });
  chmodSync(locked, 0o700);
  return locked;
}

async function tablesIn(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query('select count(*)::int as n from pg_tables')).rows[0].n;
  } finally {
    await client.end();
  }
}

test(
  'as root, a data directory the database user cannot reach gets its cluster where that user can, named in a note',
  ROOT_ONLY,
  async () => {
    const dir = tempDir();
    try {
      const dataDir = join(lockedDir(dir), 'data');
      const systemDir = join(dir, 'system');
      const first = await startEmbeddedPostgres(dataDir, undefined, { systemDir });
      try {
        assert.ok(first.clusterDir.startsWith(join(systemDir, 'clusters')), first.clusterDir);
        assert.match(readFileSync(join(dataDir, 'pg-location.txt'), 'utf8'), new RegExp(first.clusterDir));
        assert.ok(
          first.notices.some((n) => n.includes(first.clusterDir)),
          'a notice names the cluster',
        );
        assert.ok((await tablesIn(await first.createDatabase('kept'))) > 0);
      } finally {
        await first.stop();
      }
      const again = await startEmbeddedPostgres(dataDir, undefined, { systemDir });
      try {
        assert.equal(again.clusterDir, first.clusterDir);
        assert.ok(
          (await tablesIn(again.url.replace(/\/tessera$/, '/kept'))) > 0,
          'the same cluster, with its databases',
        );
      } finally {
        await again.stop();
      }
      // A new data directory at the same path has new credentials: the old cluster is replaced, not left unusable.
      rmSync(dataDir, { recursive: true });
      const fresh = await startEmbeddedPostgres(dataDir, undefined, { systemDir });
      await fresh.stop();
      assert.equal(fresh.clusterDir, first.clusterDir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'as root, binaries the database user cannot reach are copied once to where it can, even by two servers starting at once',
  ROOT_ONLY,
  async () => {
    const dir = tempDir();
    try {
      const pkg = join(lockedDir(dir), 'pkg');
      cpSync(join(PACKAGED_BIN, '..'), join(pkg, 'native'), { recursive: true, verbatimSymlinks: true });
      writeFileSync(join(pkg, 'package.json'), JSON.stringify({ version: '0.0.0-test' }));
      const systemDir = join(dir, 'system');
      const opts = { nativeDir: join(pkg, 'native'), systemDir };
      const servers = await Promise.all([
        startEmbeddedPostgres(join(dir, 'a'), undefined, opts),
        startEmbeddedPostgres(join(dir, 'b'), undefined, opts),
      ]);
      try {
        const copy = join(systemDir, 'postgres-0.0.0-test');
        for (const s of servers) {
          assert.equal(
            readlinkSync(`/proc/${pidOf(join(s.clusterDir, '..'))}/exe`),
            join(copy, 'bin', 'postgres'),
            'runs from the copy',
          );
          assert.ok((await tablesIn(s.url)) > 0);
        }
        assert.deepEqual(
          readdirSync(systemDir).filter((f) => f.includes('postgres')),
          ['postgres-0.0.0-test'],
          'one copy, no leftovers',
        );
        assert.equal(statSync(copy).mode & 0o777, 0o755);
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(
  'as root, a cluster the database user cannot reach any more stops start-up with one sentence naming the fix',
  ROOT_ONLY,
  () => {
    const dir = tempDir();
    try {
      const data = join(lockedDir(dir), 'data');
      mkdirSync(join(data, 'pg'), { recursive: true });
      writeFileSync(join(data, 'pg', 'PG_VERSION'), '18\n');
      writeFileSync(join(data, 'pg-credentials.json'), JSON.stringify({ user: 'tessera', password: 'x' }));
      for (const command of ['migrate', 'serve']) {
        const r = spawnSync(process.execPath, [CLI, command], {
          env: { PATH: process.env.PATH ?? '', TESSERA_DATA_DIR: data, LOG_LEVEL: 'silent', PORT: '0' },
          encoding: 'utf8',
          timeout: 120_000,
        });
        assert.notEqual(r.status, 0);
        assert.match(r.stderr, /cannot reach/);
        assert.match(r.stderr, /DATABASE_URL/);
        assert.equal(r.stderr.trim().split('\n').length, 1, `one sentence, no stack trace: ${r.stderr}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

test(`${verifies('CONTRACT-invalid-config')}invalid configuration stops start-up with a message naming the variable`, () => {
  const r = spawnSync(process.execPath, [CLI, 'serve'], {
    env: { PATH: process.env.PATH ?? '', PORT: 'eighty', DATABASE_URL: 'mysql://nope' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /PORT/);
  assert.match(r.stderr, /DATABASE_URL/);
});
