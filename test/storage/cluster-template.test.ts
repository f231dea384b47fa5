/** The embedded PostgreSQL's cluster template: a new data directory gets a working copy, with a password of its own. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/storage/embedded-postgres.ts';

async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

test('a new data directory starts from a copy of the cluster template, with its own password and data', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-template-'));
  chmodSync(dir, 0o755); // as root the server runs as "postgres", which must reach it
  const opts = { templatesDir: join(dir, 'templates'), systemDir: join(dir, 'system') };
  try {
    const first = await startEmbeddedPostgres(join(dir, 'a'), undefined, opts);
    try {
      assert.ok('template copy' in first.timings && !('initdb' in first.timings), JSON.stringify(first.timings));
      await query(first.url, 'create table only_in_a (id int)');
    } finally {
      await first.stop();
    }
    const second = await startEmbeddedPostgres(join(dir, 'b'), undefined, opts);
    const [template] = readdirSync(opts.templatesDir).filter((f) => f.startsWith('pg-template-'));
    const templatePassword = readFileSync(join(opts.templatesDir, template!, 'password'), 'utf8');
    try {
      assert.ok('template copy' in second.timings && !('initdb' in second.timings), JSON.stringify(second.timings));
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
