import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createTestDatabase } from '../support/database.ts';
import { startServerProcess } from '../support/server-process.ts';
import { restClient } from '../support/rest.ts';
import { verifies } from '../support/requirements.ts';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

function tessera(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

test(`${verifies('CONTRACT-cli-bootstrap', 'SPEC-5.3-requested-scopes')}bootstrap --json creates an organization, owner, shop and a working API key with only the requested scopes`, async () => {
  const DATABASE_URL = await createTestDatabase();
  const r = tessera(
    [
      'bootstrap',
      '--org',
      'Acme Live',
      '--email',
      'ops@acme.test',
      '--shop',
      'Acme Hall',
      '--scopes',
      'merchant:read',
      '--json',
    ],
    { DATABASE_URL },
  );
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(Object.keys(out).sort(), ['apiKey', 'organizationId', 'ownerId', 'shopId']);
  assert.match(out.apiKey, /^tsk_/);
  const server = await startServerProcess({ DATABASE_URL });
  try {
    const api = restClient(server.url, out.apiKey);
    const pools = await api.get(`/v1/integration/pools?merchantId=${out.shopId}`);
    assert.equal(pools.status, 200);
    assert.deepEqual(pools.body, { pools: [] });
    const write = await api.post('/v1/integration/pools', { merchantId: out.shopId, capacity: 1 });
    assert.equal(write.status, 403);
    assert.equal(write.body.code, 'insufficient_scope');
  } finally {
    await server.stop();
  }
});

test('bootstrap refuses missing options and unknown scopes with a usage error', async () => {
  const DATABASE_URL = await createTestDatabase();
  const missing = tessera(['bootstrap', '--org', 'X'], { DATABASE_URL });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /--email/);
  const bad = tessera(
    ['bootstrap', '--org', 'X', '--email', 'a@b.test', '--shop', 'S', '--scopes', 'merchant:everything'],
    { DATABASE_URL },
  );
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown scope merchant:everything/);
  const unknownFlag = tessera(['bootstrap', '--frobnicate'], { DATABASE_URL });
  assert.equal(unknownFlag.status, 2);
  // Names are held to create_shop's 200 characters, so the documented bound of every name the API answers is true.
  const long = tessera(['bootstrap', '--org', 'O'.repeat(201), '--email', 'a@b.test', '--shop', 'S'], { DATABASE_URL });
  assert.equal(long.status, 2);
  assert.match(long.stderr, /--org must be a name of 1 to 200 characters/);
});
