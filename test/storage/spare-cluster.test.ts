/**
 * The spare cluster (src/storage/embedded-postgres-spare.ts): a new data directory takes the template's spare copy by
 * a rename when there is one, copies the template when there is none, and either way the next spare is made in the
 * background; a cluster taken as the spare answers only to its data directory's own password, like a copy.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../src/storage/embedded-postgres.ts';
import { queryUrl } from '../support/database.ts';

const TAKEN = 'template copy: the spare taken';

const query = queryUrl;

test('a new data directory takes the spare cluster when there is one, and the next spare is made', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-spare-'));
  chmodSync(dir, 0o755); // as root the server runs as "postgres", which must reach it
  const opts = { templatesDir: join(dir, 'templates'), systemDir: join(dir, 'system'), spareCluster: true };
  try {
    const first = await startEmbeddedPostgres(join(dir, 'a'), undefined, opts);
    const [name] = readdirSync(opts.templatesDir).filter((f) => f.startsWith('pg-template-'));
    const template = join(opts.templatesDir, name!);
    try {
      assert.ok('template copy' in first.timings && !(TAKEN in first.timings), JSON.stringify(first.timings));
      assert.ok(first.spareMade, 'a spare is being made');
      await first.spareMade;
      assert.ok(existsSync(join(template, 'spare', 'PG_VERSION')), 'the spare is in place');
      await query(first.url, 'create table only_in_a (id int)');
    } finally {
      await first.stop();
    }

    const second = await startEmbeddedPostgres(join(dir, 'b'), undefined, opts);
    try {
      assert.ok(TAKEN in second.timings, JSON.stringify(second.timings));
      assert.deepEqual(await query(second.url, "select to_regclass('only_in_a') as t"), [{ t: null }], 'its own data');
      const applied = (await query(second.url, 'select count(*)::int as n from mikro_orm_migrations')) as {
        n: number;
      }[];
      assert.ok(applied[0]!.n > 0, 'migrated, as the template is');
      const withTemplatePassword = new URL(second.url);
      withTemplatePassword.password = encodeURIComponent(readFileSync(join(template, 'password'), 'utf8'));
      await assert.rejects(query(withTemplatePassword.href, 'select 1'), { code: '28P01' }, "the template's password");
      await second.spareMade;
      assert.ok(existsSync(join(template, 'spare', 'PG_VERSION')), 'the next spare is in place');
      assert.deepEqual(
        readdirSync(template).filter((f) => f.startsWith('spare.tmp-')),
        [],
        'no copy in progress is left',
      );
    } finally {
      await second.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
