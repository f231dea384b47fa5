/**
 * Operators' view of a server's life: a JSON line on start (its URL, where the data lives, its version) and on
 * shutdown (the signal, then "stopped"), never the database's credentials.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase } from '../support/database.ts';
import { startServerProcess } from '../support/server-process.ts';
import { restClient } from '../support/rest.ts';

const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
    version: string;
  }
).version;

test('the server logs where it listens, where its data lives and its version, and its shutdown on SIGTERM', async () => {
  const DATABASE_URL = await createTestDatabase();
  const db = new URL(DATABASE_URL);
  const server = await startServerProcess({ DATABASE_URL, LOG_LEVEL: 'info' });
  const closed = once(server.child, 'close'); // every line read, stderr included
  try {
    assert.equal((await restClient(server.url).get('/healthz')).status, 200);
  } finally {
    await server.stop();
  }
  await closed;
  const lines = server
    .stderr()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  // The banner names the console, where merchants sign in (issue #34, "Getting in").
  assert.ok(server.stdout().includes(`  Console   ${server.url}/console `), server.stdout());
  const start = lines.find((l) => l.msg === 'listening');
  assert.ok(start, `a start line: ${server.stderr()}`);
  assert.equal(start.url, server.url);
  assert.equal(start.database, `${db.hostname}:${db.port || 5432}${db.pathname}`);
  assert.equal(start.version, VERSION);
  const msgs = lines.map((l) => l.msg);
  const down = lines.find((l) => l.msg === 'shutting down');
  assert.equal(down?.signal, 'SIGTERM');
  assert.ok(msgs.indexOf('stopped') > msgs.indexOf('shutting down'), `stopped after shutting down: ${msgs.join(', ')}`);
  if (db.password) assert.ok(!server.stderr().includes(db.password), 'no line holds the database password');
});
