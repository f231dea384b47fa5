/**
 * The embedded PostgreSQL's cluster template: a new data directory gets a working copy, with a password of its own and
 * every migration applied; a changed migration list makes a new template; a server on a new data directory applies no
 * migration and seeds the demo data.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../src/storage/embedded-postgres.ts';
import { queryUrl } from '../support/database.ts';
import { MIGRATIONS_DIR, migrationsKey } from '../../src/storage/embedded-postgres-template.ts';
import { MIGRATIONS } from '../../src/storage/migrations/index.ts';
import { startServerProcess } from '../support/server-process.ts';

const BUILT = 'template build (in the copy)';
const templates = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('pg-template-'));

const query = queryUrl;

test('a new data directory starts from a copy of the cluster template, with its own password and data', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-template-'));
  chmodSync(dir, 0o755); // as root the server runs as "postgres", which must reach it
  const opts = { templatesDir: join(dir, 'templates'), systemDir: join(dir, 'system') };
  try {
    const first = await startEmbeddedPostgres(join(dir, 'a'), undefined, opts);
    try {
      assert.ok('template copy' in first.timings && !('initdb' in first.timings), JSON.stringify(first.timings));
      assert.ok(BUILT in first.timings, JSON.stringify(first.timings));
      const applied = await query(first.url, 'select name from mikro_orm_migrations order by name');
      assert.deepEqual(
        applied,
        MIGRATIONS.map((m) => ({ name: m.name })).sort((a, b) => a.name.localeCompare(b.name)),
      );
      await query(first.url, 'create table only_in_a (id int)');
    } finally {
      await first.stop();
    }
    const second = await startEmbeddedPostgres(join(dir, 'b'), undefined, opts);
    const [template] = readdirSync(opts.templatesDir).filter((f) => f.startsWith('pg-template-'));
    const templatePassword = readFileSync(join(opts.templatesDir, template!, 'password'), 'utf8');
    try {
      assert.ok('template copy' in second.timings && !('initdb' in second.timings), JSON.stringify(second.timings));
      assert.ok(!(BUILT in second.timings), 'the same template');
      assert.deepEqual(await query(second.url, "select to_regclass('only_in_a') as t"), [{ t: null }], 'its own data');
      const withTemplatePassword = new URL(second.url);
      withTemplatePassword.password = encodeURIComponent(templatePassword);
      await assert.rejects(query(withTemplatePassword.href, 'select 1'), { code: '28P01' }, "the template's password");
    } finally {
      await second.stop();
    }
    const again = await startEmbeddedPostgres(join(dir, 'b'), undefined, opts);
    await again.stop();
    assert.deepEqual(Object.keys(again.timings).sort(), ['postgres start', 'tessera database'], 'the same cluster');
    // A copy whose password was never changed (the process died in between) is made anew on the next start.
    writeFileSync(join(dir, 'b', 'pg-copying'), '');
    const retried = await startEmbeddedPostgres(join(dir, 'b'), undefined, opts);
    try {
      assert.ok('template copy' in retried.timings, JSON.stringify(retried.timings));
      assert.deepEqual(await query(retried.url, 'select 1 as one'), [{ one: 1 }]);
    } finally {
      await retried.stop();
    }
    // The template is keyed by the migrations' sources: one more migration (or an edited one) is another key.
    assert.ok(templates(opts.templatesDir)[0]!.endsWith(`-${migrationsKey()}`), 'keyed by the migrations');
    const changed = join(dir, 'migrations');
    cpSync(MIGRATIONS_DIR, changed, { recursive: true });
    assert.equal(migrationsKey(changed), migrationsKey(), 'the same migrations, the same key');
    writeFileSync(join(changed, '9999-another.ts'), '// one more migration\n');
    const added = migrationsKey(changed);
    assert.notEqual(added, migrationsKey());
    writeFileSync(join(changed, 'index.ts'), `${readFileSync(join(changed, 'index.ts'), 'utf8')}\n// edited\n`);
    assert.notEqual(migrationsKey(changed), added);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a server on a new data directory finds every migration applied and seeds the demo data', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-template-serve-'));
  chmodSync(dir, 0o755);
  const server = await startServerProcess({ TESSERA_DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'debug' });
  try {
    const log = server.stderr();
    assert.match(log, /"startPhase":"template copy"/, 'a new data directory, copied from the template');
    assert.match(log, /"startPhase":"migrations"/);
    assert.doesNotMatch(log, /"msg":"migrations applied"/, 'every migration was in the copy');
    const demo = JSON.parse(readFileSync(join(dir, 'data', 'demo.json'), 'utf8')) as Record<string, string>;
    const res = await fetch(`${server.url}/v1/integration/pools?merchantId=${demo.shopId}`, {
      headers: { authorization: `Bearer ${demo.apiKey}` },
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), new RegExp(demo.poolId!));
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
