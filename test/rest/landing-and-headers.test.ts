/** The first five minutes: `GET /` links what a person needs, and every response carries the security headers. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

test('GET / is a small landing page linking the console, the API reference, the buyer pages, the dev mail and the health endpoints', async () => {
  const res = await fetch(`${h.url}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const html = await res.text();
  for (const href of [
    '/console',
    '/docs',
    '/v1/openapi.json',
    '/buyer/sign-in',
    '/.well-known/agent-card.json',
    '/healthz',
    '/readyz',
    '/metrics',
    '/dev/mail',
  ]) {
    assert.ok(html.includes(`href="${href}"`), `links ${href}`);
    const target = await fetch(`${h.url}${href}`);
    assert.equal(target.status, 200, `${href} answers`);
    await target.arrayBuffer();
  }
  assert.match(html, /<html lang="en">/);
  assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'.*frame-ancestors 'none'/);
});

test('JSON, errors, pages and the docs all carry the helmet baseline; pages keep their own CSP on top', async () => {
  const cases: { path: string; csp: RegExp }[] = [
    { path: '/healthz', csp: /^default-src 'none';/ },
    { path: '/v1/nowhere', csp: /^default-src 'none';/ },
    { path: '/v1/integration/pools?merchantId=shop_x', csp: /^default-src 'none';/ },
    { path: '/buyer/sign-in', csp: /script-src 'self'/ },
    { path: '/docs', csp: /default-src 'self'/ },
  ];
  for (const c of cases) {
    const res = await fetch(`${h.url}${c.path}`);
    await res.arrayBuffer();
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', c.path);
    assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN', c.path);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer', c.path);
    assert.equal(res.headers.get('cross-origin-opener-policy'), 'same-origin', c.path);
    assert.match(res.headers.get('strict-transport-security') ?? '', /max-age=\d+/, c.path);
    assert.match(res.headers.get('content-security-policy') ?? '', c.csp, c.path);
    assert.equal(res.headers.get('x-powered-by'), null, c.path);
  }
});

test('the buyer pages follow the browser language through Accept-Language quality values', async () => {
  const res = await fetch(`${h.url}/buyer/sign-in`, {
    headers: { 'accept-language': 'xx;q=0.9, en-GB;q=0.5, *;q=0.1' },
  });
  await res.text();
  assert.equal(res.headers.get('content-language'), 'en');
});
