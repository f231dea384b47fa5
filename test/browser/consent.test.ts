/**
 * The embeddable consent view in Chromium, framed by partner pages served from other origins (a second and a third
 * local HTTP server: `http://localhost:<port>`, while Tessera listens on 127.0.0.1). The listed partner frames the
 * view, hands over a merchant-minted bounded session by postMessage, and the buyer verifies, creates an agent, closes,
 * reopens (the draft resumes at the card step), saves a card in the provider's frame, sets limits and grants; every
 * code is typed in the view; the partner receives `completed` with the permission id. "Discard this setup?" then yes
 * delivers `cancelled`. An unlisted origin cannot frame the view (CSP) and gets no CORS. axe-core finds no serious or
 * critical violation in English and German. A session for another shop is refused with `error`.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { FrameLocator, Page } from 'playwright-core';
import { restClient } from '../support/rest.ts';
import { codeIn } from '../support/smtp.ts';
import { WAIT } from './browser.ts';
import { newEmail, startWorld, type World } from './flows.ts';

interface Partner {
  origin: string;
  close(): Promise<void>;
}

/** A partner's page: frames the view, answers `ready` with the session, records every event the view posts. */
function partnerPage(tessera: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Partner shop</title></head><body>
<main><h1>Partner shop</h1><div id="holder"></div></main>
<script>
window.events = [];
let frame = null;
let popup = null;
let token = null;
window.openPopup = (url, session) => {
  token = session;
  popup = window.open(url, 'tessera-consent', 'popup,width=520,height=760');
};
const TESSERA = ${JSON.stringify(tessera)};
window.openView = (url, session) => {
  token = session;
  frame = document.createElement('iframe');
  frame.src = url;
  frame.title = 'Set up your agent with Tessera';
  frame.style.width = '100%';
  frame.style.height = '800px';
  document.getElementById('holder').append(frame);
};
window.anyMessages = [];
window.addEventListener('message', (e) => window.anyMessages.push(e.data));
window.addEventListener('message', (e) => {
  const view = frame ? frame.contentWindow : popup;
  if (e.origin !== TESSERA || !view || e.source !== view) return;
  if (!e.data || e.data.source !== 'tessera-consent') return;
  window.events.push(e.data);
  if (e.data.type === 'ready') view.postMessage({ source: 'tessera-consent', version: 1, type: 'session', token }, TESSERA);
});
window.closeView = () => {
  frame.contentWindow.postMessage({ source: 'tessera-consent', version: 1, type: 'close' }, TESSERA);
};
window.removeView = () => { frame.remove(); frame = null; };
window.tryBuyerApi = (session) => fetch(TESSERA + '/v1/buyer/session', { headers: { authorization: 'Bearer ' + session } }).then((r) => 'status ' + r.status, (e) => 'failed: ' + e.name);
</script></body></html>`;
}

async function startPartner(tessera: string): Promise<Partner> {
  const server: Server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('connection', 'close');
    res.end(partnerPage(tessera));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const port = (server.address() as AddressInfo).port;
  return { origin: `http://localhost:${port}`, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

let w: World;
let partner: Partner;
let stranger: Partner;
let apiKey: string;
let shopId: string;
let tessera: string;

before(async () => {
  w = await startWorld();
  tessera = new URL(w.h.url).origin;
  partner = await startPartner(tessera);
  stranger = await startPartner(tessera);
  const m = await w.h.merchant();
  apiKey = m.apiKey;
  shopId = m.shopId;
  const set = await restClient(w.h.url, apiKey).patch(`/v1/integration/shops/${shopId}`, { embedOrigin: `${partner.origin} https://shop.example` });
  assert.equal(set.status, 200, JSON.stringify(set.body));
});
after(async () => {
  await partner?.close();
  await stranger?.close();
  await w?.close();
});

async function mint(email: string, lang?: string): Promise<string> {
  const res = await restClient(w.h.url, apiKey).post('/v1/integration/buyer-sessions', { merchantId: shopId, email, ...(lang ? { lang } : {}) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.token;
}

const viewUrl = (origin: string, extra = '') => `${tessera}/embed/consent?shop=${shopId}&origin=${encodeURIComponent(origin)}${extra}`;

/** Opens the partner page and frames the view with a freshly minted session; returns the view's frame. */
async function openView(page: Page, email: string, extra = ''): Promise<FrameLocator> {
  if (!page.url().startsWith(partner.origin)) await page.goto(`${partner.origin}/`);
  await page.evaluate(([url, token]) => (window as any).openView(url, token), [viewUrl(partner.origin, extra), await mint(email)] as const);
  const view = page.frameLocator('iframe[title="Set up your agent with Tessera"]');
  await view.locator('main[data-ready]').waitFor();
  return view;
}

const events = (page: Page) => page.evaluate(() => (window as any).events as { type: string; [k: string]: unknown }[]);
async function waitForEvent(page: Page, type: string): Promise<{ type: string; [k: string]: unknown }> {
  await page.waitForFunction((t) => (window as any).events.some((e: { type: string }) => e.type === t), type, { timeout: WAIT });
  return (await events(page)).find((e) => e.type === type)!;
}

/** Submits a form's first step (the code is e-mailed), then types the code from the e-mail. */
async function enterCode(view: FrameLocator, email: string, prefix: string, button = 'Continue'): Promise<void> {
  const before = w.mail.count(email);
  await view.locator(`#step-${prefix === 'verify' ? 'verify' : prefix === 'grant' ? 'limits' : prefix}`).getByRole('button', { name: button }).click();
  await view.locator(`#${prefix}-code-step:not([hidden])`).waitFor();
  assert.equal(w.mail.count(email), before + 1, 'one code e-mailed');
  await view.locator(`#${prefix}-code`).fill(codeIn(w.mail.last(email)));
}

async function verify(view: FrameLocator, email: string): Promise<void> {
  await view.locator('#step-verify:not([hidden])').waitFor();
  await enterCode(view, email, 'verify');
  await view.getByRole('button', { name: 'Confirm' }).click();
}

const future = () => new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

test('a listed partner frames the view; the buyer verifies, creates an agent, closes, resumes at the card step, saves a card, grants, and the partner gets completed', { timeout: 600_000 }, async () => {
  const email = newEmail();
  const page = await w.browser.page();
  let view = await openView(page, email);
  assert.deepEqual((await events(page))[0], { source: 'tessera-consent', version: 1, type: 'ready' });
  await verify(view, email);

  await view.locator('#step-agent:not([hidden])').waitFor();
  await view.getByLabel('Agent name').fill('Concert helper');
  await enterCode(view, email, 'agent');
  await view.getByRole('button', { name: 'Create agent' }).click();
  await view.locator('#step-card:not([hidden])').waitFor();
  assert.match(await view.locator('#new-credential-value').inputValue(), /^tag_/);
  assert.ok((await events(page)).some((e) => e.type === 'resize' && Number.isInteger(e.height) && (e.height as number) > 0), 'resize events carry an integer height');

  // The partner closes the dialog: the setup is kept as a draft at the card step.
  await page.evaluate(() => (window as any).closeView());
  const bounded = restClient(w.h.url, await mint(email));
  let draft: any = null;
  for (let i = 0; i < 200 && draft?.step !== 'card'; i++) draft = (await bounded.get('/v1/buyer/consent-draft')).body.draft;
  assert.equal(draft?.step, 'card');
  assert.match(draft.agentId, /^agt_/);
  await page.evaluate(() => (window as any).removeView());

  // Reopening resumes at the same step after the buyer proves it is them again.
  view = await openView(page, email);
  await verify(view, email);
  await view.locator('#step-card:not([hidden])').waitFor();
  await view.locator('#status', { hasText: 'Welcome back' }).waitFor();
  await view.getByRole('button', { name: 'Add a card' }).click();
  const form = view.frameLocator('iframe[title="Card details form from the payment provider"]');
  await form.getByLabel('Card number').fill('4242 4242 4242 4242');
  await form.getByRole('button', { name: 'Use this card' }).click();
  await view.locator('#save-card-form:not([hidden])').waitFor();
  await view.getByLabel('Spending cap per charge').fill('150.00');
  await enterCode(view, email, 'card');
  await view.getByRole('button', { name: 'Save card' }).click();

  await view.locator('#step-limits:not([hidden])').waitFor();
  await view.locator('#grant-who', { hasText: 'Concert helper will charge Visa ending in 4242.' }).waitFor();
  await view.getByLabel('Most per purchase').fill('50.00');
  await view.getByLabel('Most in total per period').fill('200.00');
  await view.getByLabel('Ends on').fill(future());
  await enterCode(view, email, 'grant');
  await view.getByRole('button', { name: 'Give permission' }).click();
  const completed = await waitForEvent(page, 'completed');
  assert.match(String(completed.permissionId), /^perm_/);
  await view.locator('#step-done:not([hidden])').waitFor();

  const { permissions } = (await bounded.get('/v1/buyer/permissions')).body;
  assert.deepEqual(permissions.map((p: { id: string }) => p.id), [completed.permissionId]);
  assert.equal((await bounded.get('/v1/buyer/consent-draft')).body.draft, null, 'a granted setup leaves no draft');
  assert.ok((await events(page)).every((e) => e.source === 'tessera-consent' && e.version === 1));
  assert.deepEqual(w.browser.problems.filter((p) => !/favicon/.test(p)), []);
  await page.close();
});

test('"Discard this setup?" then yes, by keyboard: the draft is gone and the partner receives cancelled', { timeout: 300_000 }, async () => {
  const email = newEmail();
  const page = await w.browser.page();
  const view = await openView(page, email);
  await verify(view, email);
  await view.locator('#step-agent:not([hidden])').waitFor();
  const bounded = restClient(w.h.url, await mint(email));
  let draft: any = null;
  for (let i = 0; i < 200 && !draft; i++) draft = (await bounded.get('/v1/buyer/consent-draft')).body.draft;
  assert.equal(draft?.step, 'agent');

  // By keyboard alone: Tab to "Cancel setup"; the dialog opens on "Keep setting up"; Escape keeps everything and
  // focus returns to the button; then Tab to "Discard" and Enter discards.
  const focused = (id: string) => view.locator(`#${id}`).evaluate((el) => el === document.activeElement);
  for (let i = 0; i < 40 && !(await focused('consent-cancel')); i++) await page.keyboard.press('Tab');
  assert.ok(await focused('consent-cancel'), 'Tab reaches Cancel setup');
  await page.keyboard.press('Enter');
  await view.getByRole('dialog', { name: 'Discard this setup?' }).waitFor();
  assert.equal(await view.locator(':focus').textContent(), 'Keep setting up', 'the safe choice has focus');
  await page.keyboard.press('Escape');
  await view.getByRole('dialog', { name: 'Discard this setup?' }).waitFor({ state: 'hidden' });
  await view.locator('#consent-cancel:focus').waitFor();
  assert.ok(!(await events(page)).some((e) => e.type === 'cancelled'));
  await page.keyboard.press('Enter');
  await view.getByRole('dialog', { name: 'Discard this setup?' }).waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await view.locator(':focus').textContent(), 'Discard');
  await page.keyboard.press('Enter');
  await waitForEvent(page, 'cancelled');
  await view.locator('#consent-discarded:not([hidden])').waitFor();
  assert.equal((await bounded.get('/v1/buyer/consent-draft')).body.draft, null);
  await page.close();
});

test('events go to the named partner origin only: a view told another listed origin posts nothing the framing page receives', { timeout: 300_000 }, async () => {
  const page = await w.browser.page();
  await page.goto(`${partner.origin}/`);
  // The view posts `ready` to https://shop.example; the browser drops a message whose target origin is not the
  // recipient's, so the framing page at another origin never receives it. Messages from one window to another arrive
  // in the order they were posted: once a probe posted after `ready` has arrived, `ready` would have arrived first.
  await page.evaluate(([url]) => (window as any).openView(url, 'unused'), [viewUrl('https://shop.example')] as const);
  const view = page.frameLocator('iframe[title="Set up your agent with Tessera"]');
  await view.locator('main[data-ready]').waitFor();
  const frame = page.frames().find((f) => f.url().startsWith(`${tessera}/embed/consent`))!;
  await frame.evaluate(() => window.parent.postMessage({ probe: true }, '*'));
  await page.waitForFunction(() => (window as any).anyMessages.some((m: { probe?: boolean }) => m?.probe), undefined, { timeout: WAIT });
  assert.deepEqual(await page.evaluate(() => (window as any).anyMessages), [{ probe: true }]);
  assert.deepEqual(await events(page), []);
  await page.close();
});

test('an unlisted origin cannot frame the view (CSP frame-ancestors) and gets no CORS on the buyer API', { timeout: 300_000 }, async () => {
  const token = await mint(newEmail());
  const page = await w.browser.page();
  await page.goto(`${stranger.origin}/`);
  const refused = page.waitForEvent('framenavigated', { predicate: (f) => f !== page.mainFrame() && f.url().startsWith('chrome-error://'), timeout: WAIT });
  await page.evaluate(([url]) => (window as any).openView(url, 'unused'), [viewUrl(stranger.origin)] as const);
  const blocked = (await refused).url().startsWith('chrome-error://');
  assert.ok(blocked, 'Chromium refused to render the framed view');
  assert.deepEqual(await events(page), []);
  assert.match(await page.evaluate((t) => (window as any).tryBuyerApi(t), token), /^failed: TypeError/, 'the browser refuses the cross-origin read');
  // The listed partner, with the same session, reads it.
  const ok = await w.browser.page();
  await ok.goto(`${partner.origin}/`);
  assert.equal(await ok.evaluate((t) => (window as any).tryBuyerApi(t), token), 'status 200');
  await page.close();
  await ok.close();
});

for (const lang of ['en', 'de'] as const) {
  test(`axe-core finds no serious or critical violation in the consent view (${lang})`, { timeout: 300_000 }, async () => {
    const email = newEmail();
    const page = await w.browser.page();
    const view = await openView(page, email, `&lang=${lang}`);
    await view.locator('#step-verify:not([hidden])').waitFor();
    assert.equal(await view.locator('html').getAttribute('lang'), lang);
    const results = await new AxeBuilder({ page }).analyze();
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    assert.deepEqual(bad, []);
    await page.close();
  });
}

test('popup mode: the view opened by window.open talks to its opener; a minted lang re-renders it in that language', { timeout: 300_000 }, async () => {
  const email = newEmail();
  const page = await w.browser.page();
  await page.goto(`${partner.origin}/`);
  const opened = page.waitForEvent('popup', { timeout: WAIT });
  await page.evaluate(([url, token]) => (window as any).openPopup(url, token), [viewUrl(partner.origin, '&mode=popup'), await mint(email, 'fr')] as const);
  const popup = await opened;
  await waitForEvent(page, 'ready');
  // The session's language (fr) replaces the browser's (en) before anything was typed.
  await popup.locator('html[lang="fr"] #step-verify:not([hidden])').waitFor();
  assert.equal(await popup.locator('h1').textContent(), 'Laisser un agent acheter pour vous');
  await popup.getByRole('button', { name: 'Continuer' }).click();
  await popup.locator('#verify-code-step:not([hidden])').waitFor();
  await popup.locator('#verify-code').fill(codeIn(w.mail.last(email)));
  assert.match(w.mail.last(email).subject, /code/i);
  await popup.getByRole('button', { name: 'Confirmer' }).click();
  await popup.locator('#step-agent:not([hidden])').waitFor();
  await popup.getByRole('button', { name: 'Annuler la configuration' }).click();
  await popup.getByRole('button', { name: 'Abandonner', exact: true }).click();
  await waitForEvent(page, 'cancelled');
  await popup.close();
  await page.close();
});

test('a session for another shop is refused in the view: the partner receives error session_wrong_shop', { timeout: 300_000 }, async () => {
  const otherShop = await w.h.merchant();
  const foreign = await restClient(w.h.url, otherShop.apiKey).post('/v1/integration/buyer-sessions', { merchantId: otherShop.shopId, email: newEmail() });
  assert.equal(foreign.status, 201);
  const page = await w.browser.page();
  await page.goto(`${partner.origin}/`);
  await page.evaluate(([url, token]) => (window as any).openView(url, token), [viewUrl(partner.origin), foreign.body.token] as const);
  const error = await waitForEvent(page, 'error');
  assert.equal(error.code, 'session_wrong_shop');
  assert.equal(typeof error.message, 'string');
  const view = page.frameLocator('iframe[title="Set up your agent with Tessera"]');
  await view.locator('#consent-failed:not([hidden])').waitFor();
  assert.equal(await view.locator('#content').isHidden(), true, 'nothing of the setup is shown');
  await page.close();
});
