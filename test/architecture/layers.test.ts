/**
 * The house rules, kept true: no upward import, no folder or file cycle, no transport below the surfaces, every tool
 * registered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TOOLS } from '../../src/tools/index.ts';
import { checkLayers } from './import-graph.ts';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

test('src/ keeps the layer rule: nothing imports upward, no folder or file cycles, no transport, driver or createRequire where it does not belong', () => {
  const violations = checkLayers(SRC);
  assert.deepEqual(
    violations.map((v) => v.message),
    [],
  );
});

/** Writes a small src/ tree of `files` (path → content) and returns its root. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'tessera-layers-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

test('the checker fails on an upward import, a cycle, a transport in the domain and storage in a tool', (t) => {
  const root = tree({
    'kernel/errors.ts': "import { quote } from '../domain/purchase/quotes.ts';\nexport const e = quote;\n",
    'domain/purchase/quotes.ts': "import Koa from 'koa';\nexport const quote = Koa;\n",
    'tools/ticketing/quote.ts': "import { Pool } from '../../storage/entities/catalog.ts';\nexport const q = Pool;\n",
    'storage/entities/catalog.ts': 'export const Pool = 1;\n',
    'payments/a.ts': "import { b } from '../mail/b.ts';\nexport const a = b;\n",
    'mail/b.ts': "import { a } from '../payments/a.ts';\nexport const b = a;\n",
    // The console application is TSX: its files are read too.
    'mandates/view.tsx': "import { app } from '../console-pages/app.ts';\nexport const v = app;\n",
    'console-pages/app.ts': 'export const app = 1;\n',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const messages = checkLayers(root).map((v) => v.message);
  const expect = (re: RegExp) =>
    assert.ok(
      messages.some((m) => re.test(m)),
      `expected ${re} in:\n${messages.join('\n')}`,
    );
  expect(
    /^src\/kernel\/errors\.ts imports src\/domain\/purchase\/quotes\.ts .*kernel is below domain and must never import upward/,
  );
  expect(/^src\/domain\/purchase\/quotes\.ts imports the package 'koa'/);
  expect(
    /^src\/tools\/ticketing\/quote\.ts imports src\/storage\/entities\/catalog\.ts: a tool handler calls domain functions/,
  );
  expect(/^folders import each other in a cycle: mail ⇄ payments/);
  expect(/^files import each other in a cycle: src\/mail\/b\.ts ⇄ src\/payments\/a\.ts/);
  expect(/^src\/mandates\/view\.tsx imports src\/console-pages\/app\.ts/);
});

test('the checker fails on a driver imported by a tool or the orchestrator, and on createRequire unless allowed', (t) => {
  const root = tree({
    'tools/ticketing/quote.ts': "import pg from 'pg';\nexport const q = pg;\n",
    'tools/ticketing/hold.ts': "import { sql } from 'kysely';\nexport const h = sql;\n",
    'tools/ticketing/pool.ts': "export const p = () => import('pg-pool');\n",
    'orchestrator/invoke.ts':
      "import type { EntityManager } from '@mikro-orm/postgresql';\nexport type E = EntityManager;\n",
    'orchestrator/client.ts': "import { Client } from 'pg/lib/client.js';\nexport const c = Client;\n",
    'domain/purchase/rows.ts': "import { sql } from 'kysely';\nexport const r = sql;\n",
    'rest/docs-page.ts':
      "import { createRequire } from 'node:module';\nexport const d = createRequire(import.meta.url);\n",
    'storage/load.ts':
      "import { createRequire } from 'node:module';\nexport const pg = createRequire(import.meta.url)('pg');\n",
    'mail/old.ts': 'export const m = 1;\n',
  });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const allowed = { 'rest/docs-page.ts': 'a reason', 'mail/old.ts': 'a stale entry' };
  const messages = checkLayers(root, allowed).map((v) => v.message);
  const expect = (re: RegExp) =>
    assert.ok(
      messages.some((m) => re.test(m)),
      `expected ${re} in:\n${messages.join('\n')}`,
    );
  expect(/^src\/tools\/ticketing\/quote\.ts imports the package 'pg', which tools\/ must not use/);
  expect(/^src\/tools\/ticketing\/hold\.ts imports the package 'kysely', which tools\/ must not use/);
  expect(/^src\/tools\/ticketing\/pool\.ts imports the package 'pg-pool', which tools\/ must not use/);
  expect(
    /^src\/orchestrator\/invoke\.ts imports the package '@mikro-orm\/postgresql', which orchestrator\/ must not use/,
  );
  expect(/^src\/orchestrator\/client\.ts imports the package 'pg\/lib\/client\.js', which orchestrator\/ must not use/);
  expect(/^src\/storage\/load\.ts uses createRequire/);
  expect(/^src\/mail\/old\.ts is in CREATE_REQUIRE_ALLOWED but no longer uses createRequire/);
  assert.ok(!messages.some((m) => m.startsWith('src/domain/')), `the domain may use kysely:\n${messages.join('\n')}`);
  assert.ok(
    !messages.some((m) => m.startsWith('src/rest/')),
    `an allowed createRequire passes:\n${messages.join('\n')}`,
  );
});

function toolFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? toolFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('every tool defined under src/tools/ is in the registry (src/tools/index.ts)', async () => {
  const registered = new Set<unknown>(TOOLS);
  const missing: string[] = [];
  for (const file of toolFiles(join(SRC, 'tools'))) {
    if (!/\bdefineTool\s*\(/.test(readFileSync(file, 'utf8'))) continue;
    const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    const tools = Object.entries(mod).filter(([, v]) => v && typeof v === 'object' && 'handler' in v && 'name' in v);
    assert.ok(tools.length > 0, `${relative(SRC, file)} calls defineTool but exports no tool`);
    for (const [name, tool] of tools) if (!registered.has(tool)) missing.push(`src/${relative(SRC, file)}: ${name}`);
  }
  assert.deepEqual(missing, [], 'defined but never added to TOOLS in src/tools/index.ts');
});
