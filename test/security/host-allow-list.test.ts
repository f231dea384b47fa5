/**
 * `/dev/mail` holds sign-in links and codes: like `/mcp` it answers only this server's own Host values, so a page on
 * another origin cannot read it by DNS rebinding (issue #10, finding 8).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startHarness, type Harness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ WEBHOOK_DISPATCH_MS: '0' });
});
after(async () => {
  await h?.close();
});

function get(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, h.url), { method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('/dev/mail refuses a foreign Host or Origin with 403 and serves its own host', async () => {
  const port = new URL(h.url).port;
  for (const headers of [
    { host: `rebound.example:${port}` },
    { host: 'rebound.example' },
    { host: `127.0.0.1:${port}`, origin: 'https://rebound.example' },
  ] as Record<string, string>[]) {
    const res = await get('/dev/mail', headers);
    assert.equal(res.status, 403, JSON.stringify(headers));
    const body = JSON.parse(res.body);
    assert.equal(body.code, 'forbidden');
    assert.equal(typeof body.message, 'string');
    assert.doesNotMatch(res.body, /outbox/i);
  }
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
    const ok = await get('/dev/mail', { host });
    assert.equal(ok.status, 200, host);
    assert.match(ok.body, /Development mail outbox/);
  }
});
