/**
 * The server runs with V8's young generation started at 64 MB a semi-space (docs/performance.md, "The collector"):
 * under a flash sale its collections otherwise stopped the event loop for about 5 % of the time. `npm start` and the
 * `tessera` command pass the flag, and so does every server process the tests and benches start; V8 reads it only
 * at start-up and `NODE_OPTIONS` refuses it, so each way of starting carries it itself.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase, dropDatabase } from '../support/database.ts';
import { SERVER_NODE_ARGS, startServerProcess } from '../support/server-process.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const MiB = 1024 * 1024;
let dbUrl: string;

before(async () => {
  dbUrl = await createTestDatabase(process.env.TESSERA_TEST_TEMPLATE_DATABASE);
});
after(async () => {
  if (dbUrl) await dropDatabase(new URL(dbUrl).pathname.slice(1));
});

/**
 * The young generation's size (bytes, both semi-spaces) of a server just started, from its /metrics (prom-client's heap
 * spaces).
 */
async function youngGeneration(how: 'node' | 'tessera command', nodeArgs?: readonly string[]): Promise<number> {
  const server = await startServerProcess(
    { DATABASE_URL: dbUrl, SWEEP_INTERVAL_MS: '0', WEBHOOK_DISPATCH_MS: '0', SANDBOX_DISPATCH_MS: '0' },
    180_000,
    nodeArgs,
    how,
  );
  try {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const m = /^nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)$/m.exec(text);
    assert.ok(m, '/metrics reports the young generation');
    return Number(m[1]);
  } finally {
    await server.stop();
  }
}

test('the tessera command starts the server with a young generation of two 64 MB semi-spaces', async () => {
  assert.ok((await youngGeneration('tessera command')) >= 128 * MiB);
});

test("the tests' and benches' server processes start with it too, and without the flag it starts smaller", async () => {
  assert.ok((await youngGeneration('node')) >= 128 * MiB, 'with SERVER_NODE_ARGS');
  // Without the flag V8 had grown it to 64 MB by the time the server was up, and sizes it as it sees fit from there.
  assert.ok((await youngGeneration('node', [])) < 128 * MiB, 'V8 keeps it smaller by itself');
});

test('npm start, the tessera command and the test helper pass the same flags', () => {
  const shebang = readFileSync(join(ROOT, 'bin', 'tessera.js'), 'utf8').split('\n')[0]!;
  assert.equal(shebang, `#!/usr/bin/env -S node ${SERVER_NODE_ARGS.join(' ')}`);
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts.start;
  assert.equal(start, `node ${SERVER_NODE_ARGS.join(' ')} src/main.ts`);
});
