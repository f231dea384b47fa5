import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { restClient } from '../support/rest.ts';
import { assertAccessible, focusIs } from '../support/browser.ts';
import { newEmail, signIn, reportOnFailure, startWorld, type World } from './flows.ts';
import { verifies } from '../support/requirements.ts';

let w: World;
reportOnFailure(() => ({ browser: w?.browser, h: w?.h }));
let partner: Server;
let partnerUrl: string;
before(async () => {
  w = await startWorld();
  // A partner's page on another origin that tries to frame the sign-in page.
  partner = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(
      `<!doctype html><html lang="en"><title>Partner</title><h1>Partner</h1><iframe title="framed" src="${w.h.url}/buyer/sign-in"></iframe>`,
    );
  });
  await new Promise<void>((ok) => partner.listen(0, '127.0.0.1', () => ok()));
  partnerUrl = `http://localhost:${(partner.address() as AddressInfo).port}/`;
});
after(async () => {
  partner?.closeAllConnections();
  await new Promise<void>((ok) => (partner ? partner.close(() => ok()) : ok()));
  await w?.close();
});

test('every buyer page passes the accessibility check when signed out', async () => {
  const page = await w.browser.page();
  for (const path of ['/buyer/sign-in', '/buyer/agents', '/buyer/cards', '/buyer/permissions', '/buyer/tickets']) {
    await page.goto(`${w.h.url}${path}`);
    await page.locator('main[data-ready]').waitFor();
    await assertAccessible(page);
  }
  await page.goto(`${w.h.url}/buyer/verify`);
  await page.locator('#verify-failed:not([hidden])').waitFor();
  assert.match(await page.locator('#verify-failed-text').innerText(), /link’s code is missing/);
  await assertAccessible(page);
  await page.screenshot({ path: join(w.browser.shotDir, 'verify-missing.png'), fullPage: true });
  assert.deepEqual(w.browser.problems, []);
});

test('pages send a strict CSP that forbids inline script and framing by other origins', async () => {
  for (const path of ['/buyer/sign-in', '/buyer/verify', '/buyer/agents', '/buyer/cards', '/buyer/permissions']) {
    const res = await fetch(`${w.h.url}${path}`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN');
    assert.equal(res.headers.get('set-cookie'), null);
    const body = await res.text();
    assert.doesNotMatch(body, /<script(?![^>]*\bsrc=)[^>]*>/, 'every script element has a src');
  }
  const asset = await fetch(`${w.h.url}/buyer/assets/app.js`);
  assert.equal(asset.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal((await fetch(`${w.h.url}/buyer/assets/..%2Fpages-account.ts`)).status, 404);
});

test('a partner origin cannot frame the sign-in page', async () => {
  const page = await w.browser.page();
  const blocked = page.waitForEvent('console', (m) => /frame-ancestors|Refused to display/.test(m.text()));
  await page.goto(partnerUrl);
  await blocked;
  const framed = page.frames().find((f) => f !== page.mainFrame());
  assert.ok(framed);
  assert.equal(await framed.locator('#sign-in-form').count(), 0);
  w.browser.problems.length = 0;
});

test(`${verifies('SPEC-5.5-bounded-memory-only')}a merchant’s bounded session lives only in page memory: no cookie or storage, and a reload signs out`, async () => {
  const m = await w.h.merchant();
  const api = restClient(w.h.url, m.apiKey);
  const minted = await api.post('/v1/integration/buyer-sessions', { merchantId: m.shopId, email: newEmail() });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  await w.browser.context.clearCookies();
  const page = await w.browser.page();
  await page.goto(`${w.h.url}/buyer/agents#session=${minted.body.token}`);
  await page.locator('#content:not([hidden])').waitFor();
  assert.deepEqual(await w.browser.context.cookies(w.h.url), []);
  assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length]), [0, 0]);
  await page.reload();
  await page.locator('#signed-out:not([hidden])').waitFor();
  assert.equal(await page.locator('#session-bar').isHidden(), true);
});

test('a buyer who signed in on these pages stays signed in across a reload (an HttpOnly cookie) until signing out', async () => {
  await w.browser.context.clearCookies();
  const page = await w.browser.page();
  const email = newEmail();
  await signIn(w, page, email);
  const cookies = await w.browser.context.cookies(w.h.url);
  assert.deepEqual(
    cookies
      .map((c) => [c.name, c.httpOnly, c.sameSite, c.path])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    [
      ['tessera_buyer', true, 'Strict', '/'],
      ['tessera_buyer_signed_in', false, 'Strict', '/'],
    ],
  );
  // The script sees only the companion that says a session is there, never the session's reference.
  assert.deepEqual(await page.evaluate(() => [document.cookie, localStorage.length, sessionStorage.length]), [
    'tessera_buyer_signed_in=1',
    0,
    0,
  ]);
  await page.reload();
  await page.locator('main[data-ready]').waitFor();
  await page.locator('#session-who', { hasText: email }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/buyer\/sign-in/);
  await page.goto(`${w.h.url}/buyer/agents`);
  await page.locator('main[data-ready] #signed-out:not([hidden])').waitFor();
});

test('signing out forgets the session and returns to the sign-in page', async () => {
  const page = await w.browser.page();
  await signIn(w, page, newEmail());
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/buyer\/sign-in/);
  await page.locator('#status', { hasText: 'You are signed out.' }).waitFor();
  await page.getByRole('link', { name: 'Agents' }).click();
  await page.locator('#signed-out:not([hidden])').waitFor();
  await focusIs(page, 'page-title');
});

test('a merchant hands over a bounded session: the page shows what it may do and hides what it may not', async () => {
  const m = await w.h.merchant();
  const api = restClient(w.h.url, m.apiKey);
  const minted = await api.post('/v1/integration/buyer-sessions', { merchantId: m.shopId, email: newEmail() });
  assert.equal(minted.status, 201, JSON.stringify(minted.body));
  const page = await w.browser.page();
  await page.goto(`${w.h.url}/buyer/agents#session=${minted.body.token}`);
  await page.locator('#content:not([hidden])').waitFor();
  assert.equal(new URL(page.url()).hash, '', 'the bearer is taken out of the address bar');
  await page.locator('#bounded-notice:not([hidden])').waitFor();
  assert.equal(await page.locator('#create-agent').isHidden(), true);
  await assertAccessible(page);
});

test('the page language follows ?lang=, then Accept-Language, else English', async () => {
  const de = await fetch(`${w.h.url}/buyer/sign-in`, { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
  assert.match(await de.text(), /<html lang="de"/);
  assert.equal(de.headers.get('content-language'), 'de');
  const unknown = await fetch(`${w.h.url}/buyer/sign-in`, { headers: { 'accept-language': 'it, ja;q=0.5' } });
  assert.equal(unknown.headers.get('content-language'), 'en', 'a language we do not have falls back to English');
  const explicit = await fetch(`${w.h.url}/buyer/sign-in?lang=en`, { headers: { 'accept-language': 'fr' } });
  assert.equal(explicit.headers.get('content-language'), 'en');
  const catalog = await fetch(`${w.h.url}/buyer/i18n/en.json`);
  assert.equal(
    (await catalog.json()).messages.errors.verification_code_invalid,
    'The code is not correct. Check the e-mail and try again.',
  );
  assert.equal((await fetch(`${w.h.url}/buyer/i18n/xx.json`)).status, 404);
});
