/**
 * The buyer pages in every language, in Chromium: every page × every language with the page scripts' own text
 * (tables, badges, summaries, errors) in place, `<html lang>` right, no English message and no raw catalog key
 * left, amounts and dates in the language's formats, and no serious or critical axe-core violation. Then the
 * language choice: a minted session's `lang`, the language menu (remembered on the buyer), the browser's language.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { LANGS } from '../../src/i18n/langs.ts';
import { englishLeakFinder, TEXT_ATTRIBUTES } from '../support/english-leaks.ts';
import { restClient } from '../support/rest.ts';
import { codeIn, signInTokenIn } from '../support/smtp.ts';
import { axeOn, pageSegments } from '../support/browser.ts';
import { newEmail, reportOnFailure, startWorld, type World } from './flows.ts';
import { buy, key, merchantShop } from '../support/buyers.ts';

const PAGES = [
  '/buyer/sign-in',
  '/buyer/verify',
  '/buyer/agents',
  '/buyer/cards',
  '/buyer/permissions',
  '/buyer/tickets',
  '/buyer/authorize',
] as const;

let w: World;
reportOnFailure(() => ({ browser: w?.browser, h: w?.h }));
let email: string;
/** A full session's bearer for a buyer holding an agent, a saved card and a permission at the shop. */
let bearer: string;
before(async () => {
  w = await startWorld();
  email = newEmail();
  bearer = await fullSession(email, 'en');
  const api = restClient(w.h.url, bearer);
  const proof = async (purpose: string) => {
    const asked = await api.post('/v1/buyer/verification-codes', { purpose });
    assert.equal(asked.status, 201, JSON.stringify(asked.body));
    return { challengeId: asked.body.challengeId, code: codeIn(w.mail.last(email)) };
  };
  const agent = await api.post('/v1/buyer/agents', { name: 'Concert helper', ...(await proof('create_agent')) });
  assert.equal(agent.status, 201, JSON.stringify(agent.body));
  const setup = await api.post('/v1/buyer/card-setups', {});
  assert.equal(
    (await api.post(`/v1/buyer/card-setups/${setup.body.setupId}/complete`, { paymentMethod: 'pm_sandbox_visa' }))
      .status,
    200,
  );
  const card = await api.post('/v1/buyer/instruments', {
    setupId: setup.body.setupId,
    spendingCapMinor: 150_050,
    ...(await proof('save_card')),
  });
  assert.equal(card.status, 201, JSON.stringify(card.body));
  const granted = await api.post('/v1/buyer/permissions', {
    agentId: agent.body.agent.id,
    instrumentId: card.body.instrument.id,
    perPurchaseCapMinor: 120_000,
    allowanceMinor: 300_000,
    windowHours: 168,
    expiresAt: new Date(w.h.clock.now().getTime() + 30 * 86_400_000).toISOString(),
    ...(await proof('grant_permission')),
  });
  assert.equal(granted.status, 201, JSON.stringify(granted.body));
  // Tickets for "My tickets": bought in a discoverable shop (a shopless session of the same buyer), one refunded
  // (void), one admitted at the door (checked in), one valid.
  const m = await merchantShop(w.h, { discoverable: true, priceMinor: 4000 });
  const order = (
    await buy(restClient(w.h.url, await fullSession(email, 'en', false)), m.tierId, 3, {
      paymentMethod: 'pm_sandbox_visa',
    })
  ).body.order;
  const refund = await m.api.post(
    `/v1/ticketing/orders/${order.id}/refunds`,
    { ticketIds: [order.tickets[0].id], reason: 'Cannot attend', returnToPool: true },
    key(),
  );
  assert.equal(refund.status, 200, JSON.stringify(refund.body));
  const scan = await m.api.post(`/v1/ticketing/events/${m.eventId}/check-ins`, {
    code: order.tickets[1].signedCode,
    device: 'gate-1',
  });
  assert.equal(scan.status, 200, JSON.stringify(scan.body));
});
after(async () => {
  await w?.close();
});

/**
 * Signs `address` in over the API with a link in `lang` (for the world's shop, unless `forShop` is false) and returns
 * the full session's bearer.
 */
async function fullSession(address: string, lang: string, forShop = true): Promise<string> {
  const anon = restClient(w.h.url);
  assert.equal(
    (await anon.post('/v1/buyer/sign-in-links', { email: address, ...(forShop ? { merchantId: w.shopId } : {}), lang }))
      .status,
    202,
  );
  const session = await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.mail.last(address)) });
  assert.equal(session.status, 201);
  return session.body.token;
}

/** The page's text as a reader meets it, with each input's validation message (`pageSegments`). */
const segments = (page: Page): Promise<string[]> => pageSegments(page, TEXT_ATTRIBUTES, { validationMessages: true });

async function seriousViolations(page: Page): Promise<string[]> {
  const results = await axeOn(page).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Opens a page in `lang` holding the buyer's full session (handed over in the fragment) and waits for its script. */
async function open(page: Page, path: string, lang: string): Promise<void> {
  const signedIn = path !== '/buyer/sign-in' && path !== '/buyer/verify';
  await page.goto(`${w.h.url}${path}?lang=${encodeURIComponent(lang)}${signedIn ? `#session=${bearer}` : ''}`);
  await page.locator('main[data-ready]').waitFor();
  if (path === '/buyer/verify') await page.locator('#verify-failed:not([hidden])').waitFor();
  if (path === '/buyer/agents') await page.locator('#agents-rows tr').first().waitFor();
  if (path === '/buyer/cards') await page.locator('#cards-rows tr').first().waitFor();
  if (path === '/buyer/permissions') await page.locator('#permissions-list article').first().waitFor();
  if (path === '/buyer/tickets') await page.locator('#tickets-orders li[data-status="void"]').first().waitFor();
}

for (const lang of LANGS) {
  test(`every page in ${lang}: <html lang> right, no English left, no raw key, no serious or critical axe violation`, async () => {
    const page = await w.browser.page();
    const finder = englishLeakFinder(lang);
    const failures: string[] = [];
    for (const path of PAGES) {
      await open(page, path, lang);
      // Text the scripts add on demand: a form's error summary (the sign-in page's, the agents page's).
      if (path === '/buyer/sign-in' || path === '/buyer/agents') {
        await page
          .locator(
            path === '/buyer/sign-in'
              ? '#sign-in-form button[type="submit"]'
              : '#create-agent-form button[type="submit"]',
          )
          .click();
        await page.locator('#error-summary:not([hidden])').waitFor();
      }
      const htmlLang = await page.evaluate(() => document.documentElement.lang);
      if (htmlLang !== lang) failures.push(`${path}: <html lang="${htmlLang}">`);
      const text = await segments(page);
      assert.ok(text.length > 15, `${path}: ${text.length} segments`);
      if (lang !== 'en') for (const leak of finder.find(text)) failures.push(`${path}: English ${leak}`);
      for (const s of text) if (/^[a-z]+\.[a-zA-Z_.]+$/.test(s)) failures.push(`${path}: raw key ${s}`);
      for (const v of await seriousViolations(page)) failures.push(`${path}: axe ${v}`);
    }
    assert.deepEqual(failures, []);
    assert.deepEqual(w.browser.problems, [], 'no console error (CSP included)');
    await page.close();
  });
}

test('amounts, dates and plurals follow the page language', async () => {
  const page = await w.browser.page();
  const cap = async (lang: string) => {
    await open(page, '/buyer/cards', lang);
    return (await page.locator('#cards-rows tr td').first().textContent())!.replace(/[\u00a0\u202f]/g, ' ');
  };
  assert.equal(await cap('en'), '€1,500.50');
  assert.equal(await cap('de'), '1.500,50 €');
  assert.equal(await cap('fr'), '1 500,50 €');
  for (const lang of ['es', 'hu', 'pt-BR']) {
    const intl = await page.evaluate(
      (l) => new Intl.NumberFormat(l, { style: 'currency', currency: 'EUR' }).format(1500.5),
      lang,
    );
    assert.equal(await cap(lang), intl.replace(/[\u00a0\u202f]/g, ' '), `${lang} as Intl writes it`);
  }
  await open(page, '/buyer/permissions', 'de');
  const summary = (await page.locator('#permissions-list article p').first().textContent())!.replace(
    /[\u00a0\u202f]/g,
    ' ',
  );
  assert.match(
    summary,
    /^Concert helper darf 1\.200,00 € pro Kauf und 3\.000,00 € pro Woche ausgeben, zulasten von Visa mit Endziffern 4242\.$/,
  );
  const date = await page.evaluate(() =>
    new Intl.DateTimeFormat('de', { dateStyle: 'medium' }).format(new Date(Date.now() + 30 * 86_400_000)),
  );
  assert.match(
    (await page.locator('#permissions-list article').first().textContent())!,
    new RegExp(`Bis ${date.replace(/\./g, '\\.')}`),
  );
  // A cap typed the German way is read the German way: 1.500,50 is the current cap, so it is refused as unchanged.
  await open(page, '/buyer/cards', 'de');
  await page.locator('#cards-rows button').first().click();
  await page.locator('#cap-amount').fill('1.500,50');
  await page.locator('#cap-form button[type="submit"]').click();
  await page.locator('#cap-amount-error', { hasText: 'Geben Sie ein anderes Limit als das aktuelle ein' }).waitFor();
  // A wrong code's message counts the tries left with the language's plural rule.
  await open(page, '/buyer/agents', 'fr');
  await page.locator('#agent-name').fill('Assistant');
  await page.locator('#create-agent-form button[type="submit"]').click();
  await page.locator('#agent-code-step:not([hidden])').waitFor();
  await page.locator('#agent-code').fill('000000');
  await page.locator('#create-agent-form button[type="submit"]').click();
  await page.locator('#error-summary', { hasText: /Le code est incorrect\. Il vous reste 4 essais\./ }).waitFor();
});

test('a minted session’s lang opens the pages in it; the language menu switches, keeps the session and is remembered', async () => {
  const page = await w.browser.page();
  const buyer = newEmail();
  const full = await fullSession(buyer, 'en');
  await page.goto(`${w.h.url}/buyer/agents#session=${full}`);
  await page.locator('main[data-ready] #content:not([hidden])').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  const saved = page.waitForResponse((r) => r.url().endsWith('/v1/buyer/language') && r.request().method() === 'PUT');
  await page.getByRole('navigation', { name: 'Language' }).getByRole('link', { name: 'Magyar' }).click();
  assert.equal((await saved).status(), 200);
  await page.waitForURL(/\/buyer\/agents\?lang=hu$/);
  await page.locator('main[data-ready][data-lang="hu"] #content:not([hidden])').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'hu');
  assert.equal(await page.locator('h1').textContent(), 'Ügynökök');
  await page.locator('#session-who', { hasText: `Bejelentkezve: ${buyer}` }).waitFor();
  const me = async (token: string) => (await restClient(w.h.url, token).get('/v1/buyer/session')).body;
  assert.equal((await me(full)).lang, 'hu', 'remembered on the buyer');
  // The menu's links in the new language keep the page and the language; links elsewhere keep ?lang=hu.
  assert.equal(
    await page
      .getByRole('navigation', { name: 'Az Ön fiókja' })
      .getByRole('link', { name: 'Mentett kártyák' })
      .getAttribute('href'),
    '/buyer/cards?lang=hu',
  );

  // A later merchant hand-off without a language opens in the remembered one; with a language, in that one.
  const m = await w.h.merchant();
  const shopApi = restClient(w.h.url, m.apiKey);
  const plain = await shopApi.post('/v1/integration/buyer-sessions', { merchantId: m.shopId, email: buyer });
  assert.equal(plain.status, 201, JSON.stringify(plain.body));
  const second = await w.browser.page();
  await second.goto(`${w.h.url}/buyer/permissions#session=${plain.body.token}`);
  await second.waitForURL(/\/buyer\/permissions\?lang=hu$/);
  await second.locator('main[data-ready][data-lang="hu"]').waitFor();
  const es = await shopApi.post('/v1/integration/buyer-sessions', { merchantId: m.shopId, email: buyer, lang: 'es' });
  await second.goto(`${w.h.url}/buyer/permissions#session=${es.body.token}`);
  await second.waitForURL(/\/buyer\/permissions\?lang=es$/);
  await second.locator('main[data-ready][data-lang="es"]').waitFor();
  assert.equal(await second.locator('h1').textContent(), 'Permisos');
});

test('without a choice, the browser’s language decides; a language we lack falls back to English', async () => {
  const page = await w.browser.page();
  const cdp = await page.context().newCDPSession(page);
  const userAgent = await page.evaluate(() => navigator.userAgent);
  const browserLanguages = (acceptLanguage: string) =>
    cdp.send('Emulation.setUserAgentOverride', { userAgent, acceptLanguage });
  await browserLanguages('pt-PT,pt;q=0.9,en;q=0.5');
  await page.goto(`${w.h.url}/buyer/sign-in`);
  await page.locator('main[data-ready]').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'pt-BR');
  assert.equal(await page.locator('h1').textContent(), 'Entrar');
  await browserLanguages('it-IT,it;q=0.9');
  await page.goto(`${w.h.url}/buyer/sign-in`);
  await page.locator('main[data-ready]').waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
  await cdp.detach();
});
