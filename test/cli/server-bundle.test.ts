/**
 * `npm start` runs the server from one bundled file (src/server-bundle.ts; docs/performance.md, "Start time"): a
 * bundle missing for the current sources is built before the server starts, one built for other sources is neither
 * run nor kept, and the bundled server is ready and answers over REST. The bundles go to a directory of this test's
 * own (TESSERA_BUNDLE_CACHE), inside node_modules/.cache as the default one is.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serverSourceHash } from '../../src/server-bundle.ts';
import { createTestDatabase, dropDatabase } from '../support/database.ts';
import { SERVER_NODE_ARGS, startServerProcess, type ServerProcess } from '../support/server-process.ts';

const ROOT = join(import.meta.dirname, '..', '..');
let dbUrl: string;
let cache: string;

before(async () => {
  dbUrl = await createTestDatabase(process.env.TESSERA_TEST_TEMPLATE_DATABASE);
  mkdirSync(join(ROOT, 'node_modules', '.cache'), { recursive: true });
  cache = mkdtempSync(join(ROOT, 'node_modules', '.cache', 'tessera-server-test-'));
});
after(async () => {
  if (cache) rmSync(cache, { recursive: true, force: true });
  if (dbUrl) await dropDatabase(new URL(dbUrl).pathname.slice(1));
});

/** `npm start`'s command on the test database, with the bundles in this test's directory and the start marks on. */
const npmStart = (): Promise<ServerProcess> =>
  startServerProcess(
    {
      DATABASE_URL: dbUrl,
      TESSERA_BUNDLE_CACHE: cache,
      LOG_LEVEL: 'debug',
      SWEEP_INTERVAL_MS: '0',
      WEBHOOK_DISPATCH_MS: '0',
      SANDBOX_DISPATCH_MS: '0',
    },
    240_000,
    SERVER_NODE_ARGS,
    'npm start',
  );

/** The start phases the server logged (src/kernel/start-phase.ts). */
const phases = (server: ServerProcess): string[] =>
  [...server.stderr().matchAll(/"startPhase":"([^"]+)"/g)].map((m) => m[1]!);

test('npm start builds the bundle for these sources, drops a stale one, and the bundled server answers', async () => {
  const stale = join(cache, '0000000000000000');
  mkdirSync(stale);
  writeFileSync(join(stale, 'cli.js'), "process.stdout.write('a stale bundle ran\\n'); process.exit(3);\n");

  const server = await npmStart();
  try {
    assert.match(server.stderr(), /Server bundle built: \S+cli\.js \(\d+ ms\)/, 'the build says what it cost');
    assert.ok(existsSync(join(cache, serverSourceHash(), 'cli.js')), 'the bundle for the current sources is there');
    assert.ok(!existsSync(stale), 'the stale bundle is gone');
    assert.doesNotMatch(server.stdout(), /stale bundle ran/);
    assert.ok(phases(server).includes('server bundle'), 'the server ran from the bundle');
    assert.match(server.stdout(), /^ {2}MCP {7}\S+\/mcp {2}\(Streamable HTTP; stdio: npx tessera mcp\)$/m);

    assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
    const res = await fetch(`${server.url}/v1/ticketing/ticket-keys`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as { keys: { kid: string }[] };
    assert.ok(Array.isArray(body.keys), 'a tool answered through the orchestrator and the database');
  } finally {
    await server.stop();
  }

  const warm = await npmStart();
  try {
    assert.doesNotMatch(warm.stderr(), /Server bundle built/, 'a warm start reuses the bundle');
    assert.ok(phases(warm).includes('server bundle'));
    assert.equal((await fetch(`${warm.url}/readyz`)).status, 200);
  } finally {
    await warm.stop();
  }
});
