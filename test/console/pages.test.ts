/**
 * The console pages over HTTP (their browser tests wait for headless Chromium): each is served with a strict CSP and
 * no inline script, the e-mailed links land on them, and every API path the console script calls is a real route.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOOLS } from '../../src/tools/index.ts';
import type { Harness } from '../support/harness.ts';
import { startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

test('sign-in, verify and accept pages are served with a strict CSP and no inline script or style', async () => {
  for (const path of ['/console/sign-in', '/console/verify', '/console/accept']) {
    const res = await fetch(`${h.url}${path}`);
    assert.equal(res.status, 200, path);
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const rule of ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"])
      assert.ok(csp.includes(rule), `${path}: ${csp}`);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const page = await res.text();
    assert.match(page, /<html lang="en"/);
    assert.match(page, /<a class="skip-link" href="#main">/);
    assert.doesNotMatch(page, /<script(?![^>]*\bsrc=)[^>]*>/, `${path} has an inline script`);
    assert.doesNotMatch(page, /\sstyle=|<style/, `${path} has inline style`);
    for (const [, id] of page.matchAll(/<label for="([^"]+)"/g))
      assert.match(page, new RegExp(`id="${id}"`), `${path}: label for ${id} has no control`);
  }
  const js = await fetch(`${h.url}/console/assets/console.js`);
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /javascript/);
  assert.equal((await fetch(`${h.url}/console`, { redirect: 'manual' })).headers.get('location'), '/console/sign-in');
});

test('the integrator’s console hides merchant:admin and the team (server-marked owner-only parts)', async () => {
  const page = await (await fetch(`${h.url}/console/verify`)).text();
  assert.match(page, /<p data-owner-only><input type="checkbox" id="scope-merchant-admin"/);
  assert.match(page, /<section id="team"[^>]*data-owner-only/);
  for (const form of ['shop-settings-form', 'shop-create-form', 'withdraw-form', 'provider-form'])
    assert.match(page, new RegExp(`<form id="${form}"[^>]*data-owner-only`), form);
  assert.doesNotMatch(page, /<form id="webhook-form"[^>]*data-owner-only/, 'integrators manage webhooks');
  for (const section of ['shops', 'webhooks', 'consent', 'provider'])
    assert.match(page, new RegExp(`<section id="${section}" aria-labelledby="${section}-title">`), section);
});

test('every API path the console script calls is a route of the registry', () => {
  const script = readFileSync(
    join(import.meta.dirname, '..', '..', 'src', 'console-pages', 'assets', 'console.js'),
    'utf8',
  );
  const routes = TOOLS.map((t) => `${t.http.method} ${t.http.path.replace(/\{\w+\}/g, '*')}`);
  const calls = [...script.matchAll(/api\('(GET|POST|PUT|PATCH|DELETE)', [`'](\/v1\/[^`']+)[`']/g)].map(
    ([, m, p]) => `${m} ${p!.replace(/\?.*$/, '').replace(/\$\{[^}]+\}/g, '*')}`,
  );
  assert.ok(calls.length >= 20, `found ${calls.length} calls`);
  // A route's parameter matches a script variable or a fixed value (e.g. the provider `stripe`).
  const patterns = routes.map((r) => new RegExp(`^${r.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]+')}$`));
  for (const c of calls)
    assert.ok(
      patterns.some((p) => p.test(c)),
      `${c} is not a route`,
    );
  const pathCalls = [...script.matchAll(/api\('POST', path,/g)];
  assert.equal(pathCalls.length, 1);
  for (const p of ['POST /v1/console/sign-in/complete', 'POST /v1/console/team/invitations/accept'])
    assert.ok(routes.includes(p));
});
