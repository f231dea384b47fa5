/**
 * The command line's small contracts (issue #36): help after a command, the signed mandate, which database mcp uses.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { draftMandate } from '../../src/mandates/sandbox-network.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');
let h: Harness;
let scratch: string;
before(async () => {
  h = await startHarness();
  scratch = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
});
after(async () => {
  await h?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string> = {}, cwd?: string) =>
  spawnSync(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    timeout: 60_000,
    ...(cwd && { cwd }),
  });

test('issue #36: `tessera mail --help` and `tessera console-token --help` print the usage and exit 0', () => {
  for (const args of [
    ['mail', '--help'],
    ['console-token', '--help'],
    ['network', 'sign', '-h'],
  ]) {
    const r = run(args, { DATABASE_URL: h.dbUrl });
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stdout, /^Usage: tessera <command>/);
    assert.match(r.stdout, /console-token --email EMAIL --org ORG/);
  }
});

test('issue #36: `tessera network sign` prints the mandate purchase_initiate takes; --merchant, a verify body', async () => {
  const m = await h.merchant(['merchant:read', 'merchant:write']);
  const dir = join(scratch, 'network');
  const env = { DATABASE_URL: h.dbUrl, TESSERA_DATA_DIR: scratch, MANDATE_TRUST_LIST: join(scratch, 'trust.json') };
  assert.equal(run(['network', 'init', '--dir', dir], env).status, 0);
  const file = join(scratch, 'mandate.json');
  writeFileSync(file, draftMandate({ merchantId: m.shopId, amountMinor: 20_000, currency: 'EUR', now: new Date() }));
  const signed = run(['network', 'sign', '--mandate', file, '--dir', dir], env);
  assert.equal(signed.status, 0, signed.stderr);
  const mandate = JSON.parse(signed.stdout);
  assert.deepEqual(Object.keys(mandate), ['payload', 'signature']);
  // purchase_initiate takes it as is: no unknown_field (it is refused later, for the untrusted network of this test).
  const api = restClient(h.url, m.apiKey);
  const res = await api.post(
    '/v1/vic/purchase-initiate',
    { reservationId: 'rsv_missing', mandate },
    { 'idempotency-key': randomUUID() },
  );
  assert.notEqual(res.body.code, 'unknown_field', JSON.stringify(res.body));
  assert.equal(res.status < 500, true);
  const verify = run(['network', 'sign', '--mandate', file, '--dir', dir, '--merchant', m.shopId], env);
  assert.deepEqual(JSON.parse(verify.stdout), { ...mandate, merchantId: m.shopId });
});

test('issue #36: `tessera mcp` says on stderr which database it uses, and warns when it is the default data directory', () => {
  const withUrl = run(['mcp'], { DATABASE_URL: h.dbUrl, LOG_LEVEL: 'info' });
  const { hostname, port, pathname } = new URL(h.dbUrl);
  assert.match(withUrl.stderr, /using DATABASE_URL/);
  assert.ok(withUrl.stderr.includes(`${hostname}:${port}${pathname}`), withUrl.stderr);
  assert.doesNotMatch(withUrl.stderr, /password|postgres:\/\//);
  // Without either, in a directory whose ./.tessera cannot be a data directory (a file): the warning comes first.
  const cwd = mkdtempSync(join(scratch, 'mcp-'));
  writeFileSync(join(cwd, '.tessera'), 'not a directory');
  const bare = run(['mcp'], { LOG_LEVEL: 'info' }, cwd);
  assert.notEqual(bare.status, 0);
  assert.match(bare.stderr, /TESSERA_DATA_DIR and DATABASE_URL are unset: using the embedded PostgreSQL in /);
  assert.ok(bare.stderr.includes(join(cwd, '.tessera')), bare.stderr);
});
