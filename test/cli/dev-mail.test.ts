/** The development mail outbox: without SMTP, mail is kept and readable by `tessera mail` and /dev/mail. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');
let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

test('a sign-in link requested without SMTP lands in the outbox, readable from the CLI and the local page', async () => {
  const api = restClient(h.url);
  const res = await api.post('/v1/buyer/sign-in-links', { email: 'Reader@Example.test' });
  assert.equal(res.status, 202, JSON.stringify(res.body));

  const page = await api.get('/dev/mail?to=reader@example.test');
  assert.equal(page.status, 200);
  assert.match(String(page.body), /\/buyer\/verify/);
  assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);

  const cli = spawnSync(process.execPath, [CLI, 'mail', '--to', 'reader@example.test'], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: h.dbUrl, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, /to reader@example\.test/);
  assert.match(cli.stdout, /\/buyer\/verify/);
});

test('the outbox page does not exist when SMTP is configured', async () => {
  const other = await startHarness({ SMTP_URL: 'smtp://127.0.0.1:1' });
  try {
    const page = await restClient(other.url).get('/dev/mail');
    assert.equal(page.status, 404);
  } finally {
    await other.close();
  }
});
