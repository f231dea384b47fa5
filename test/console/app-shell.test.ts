/**
 * The console application's shell in headless Chromium: every /console path answers the app under a strict CSP; sign-in
 * from the e-mailed link opens the signed-in shell; deep links, back and forward, the 404 view, the shop in the URL,
 * focus on the view's heading, languages, sign-out; editing and retiring a tier; an integrator's read-only sale views.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertAccessible, axeOn, focusIs, launchBrowser, type TestBrowser } from '../support/browser.ts';
import {
  merchantShop,
  newEmail,
  signIn as signInBuyer,
  startWorld,
  type MerchantShop,
  type World,
} from '../support/buyers.ts';
import { restClient } from '../support/rest.ts';
import { confirmWith, must, reserveOne } from '../support/spine.ts';
import { reportOnFailure } from '../browser/flows.ts';

let w: World;
let browser: TestBrowser;
let m: MerchantShop;
let ownerEmail: string;
reportOnFailure(() => ({ browser, h: w?.h }));
before(async () => {
  browser = await launchBrowser();
  w = await startWorld();
  m = await merchantShop(w.h);
  const [row] = await w.h.db.execute<{ email: string }>('select email from users where id = ?', [m.ownerId]);
  ownerEmail = row!.email;
});
after(async () => {
  await browser?.close();
  await w?.close();
});

async function noAxeViolations(page: Page, where: string): Promise<void> {
  const results = await axeOn(page).analyze();
  const found = results.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
  assert.deepEqual(found, [], `axe on ${where}`);
}

/** Signs the owner in through the sign-in view and the e-mailed link. */
async function signIn(page: Page): Promise<void> {
  const before = w.box.count(ownerEmail);
  await page.goto(`${w.h.url}/console/sign-in`);
  await page.getByLabel('Work e-mail').fill(ownerEmail);
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await page.locator('.feedback', { hasText: 'a sign-in link is on its way' }).waitFor();
  assert.equal(w.box.count(ownerEmail), before + 1);
  const hit = /\/console\/verify#token=[\w-]+/.exec(w.box.last(ownerEmail).text);
  assert.ok(hit, 'a /console/verify link in the mail');
  await page.goto(`${w.h.url}${hit[0]}`);
  await page.locator('main[data-view="overview"]').waitFor();
}

test('every console path answers the application under a strict CSP, with no inline script or style', async () => {
  for (const path of ['/console', '/console/sign-in', '/console/shops/shop_x/orders/ord_y', '/console/nothing-here']) {
    const res = await fetch(`${w.h.url}${path}`);
    assert.equal(res.status, 200, path);
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const rule of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"])
      assert.ok(csp.includes(rule), `${path}: ${csp}`);
    const html = await res.text();
    assert.match(html, /<div id="app">/);
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, `${path} has an inline script`);
    assert.doesNotMatch(html, /\sstyle=|<style/, `${path} has inline style`);
  }
  const js = await fetch(`${w.h.url}/console/assets/console.js`);
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /javascript/);
  const de = (await (await fetch(`${w.h.url}/console/assets/i18n/de.json`)).json()) as { lang: string };
  assert.ok(['de', 'en'].includes(de.lang));
});

test('sign-in from the e-mailed link opens the shell; deep links, back and forward, 404 and focus work', async () => {
  const page = await browser.page();
  await page.goto(`${w.h.url}/console/sign-in`);
  await page.locator('main[data-view="sign-in"]').waitFor();
  await assertAccessible(page);
  await noAxeViolations(page, 'sign-in');
  await signIn(page);
  assert.equal(new URL(page.url()).pathname, `/console/shops/${m.shopId}/overview`);
  assert.ok(!page.url().includes('token'), 'the one-time token is gone from the address bar');
  await assertAccessible(page);
  await noAxeViolations(page, 'overview');

  await page.getByRole('link', { name: 'Orders' }).click();
  await page.locator('main[data-view="orders"]').waitFor();
  await focusIs(page, 'view-title');
  assert.equal(new URL(page.url()).pathname, `/console/shops/${m.shopId}/orders`);
  await page.goBack();
  await page.locator('main[data-view="overview"]').waitFor();
  await page.goForward();
  await page.locator('main[data-view="orders"]').waitFor();

  // Six languages: the picker reloads the messages; the choice outlives a reload.
  await page.getByLabel('Language').selectOption('de');
  await page.locator('#view-title', { hasText: 'Bestellungen' }).waitFor();
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'de');
  await page.reload();
  await page.locator('main[data-view="orders"] #view-title', { hasText: 'Bestellungen' }).waitFor();
  await assertAccessible(page, 'de');
  await noAxeViolations(page, 'orders in German');
  await page.getByLabel('Sprache').selectOption('en');
  await page.locator('#view-title', { hasText: 'Orders' }).waitFor();

  // An unknown view, and another organization's shop, answer the not-found view (signed in: the cookie session).
  const other = await w.h.merchant();
  for (const path of ['/console/no-such-view', `/console/shops/${other.shopId}/orders`]) {
    await page.goto(`${w.h.url}${path}`);
    await page.locator('main[data-view="not-found"] #view-title', { hasText: 'Page not found' }).waitFor();
  }
  await noAxeViolations(page, 'not found');
  // Sign-out ends the session: a reload then asks to sign in.
  await page.locator('#sign-out').click();
  await page.locator('main[data-view="sign-in"]').waitFor();
  await page.reload();
  await page.locator('main[data-view="sign-in"]').waitFor();
  // A deep link while signed out: sign in, and the e-mailed link lands on the view that was asked for.
  const deep = `/console/shops/${m.shopId}/events`;
  await page.goto(`${w.h.url}${deep}`);
  await page.locator('main[data-view="sign-in"]').waitFor();
  await page.getByLabel('Work e-mail').fill(ownerEmail);
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await page.locator('.feedback', { hasText: 'a sign-in link is on its way' }).waitFor();
  await page.goto(`${w.h.url}${/\/console\/verify#token=[\w-]+/.exec(w.box.last(ownerEmail).text)![0]}`);
  await page.locator('main[data-view="events"]').waitFor();
  assert.equal(new URL(page.url()).pathname, deep);
  // A signed-out page asks the server nothing (the session cookie's readable companion says so): no 401 either.
  assert.deepEqual(browser.problems, []);
});

test('an owner resends an order’s tickets, edits and retires a tier; an integrator gets no write forms', async () => {
  const page = await browser.page();
  // A buyer signed in on the buyer pages buys two tickets: the order carries the buyer's e-mail.
  const buyerEmail = newEmail();
  const buyer = restClient(w.h.url, await signInBuyer(w, buyerEmail, m.shopId));
  const held = await reserveOne(buyer, m.tierId, 2);
  const { order } = must(await confirmWith(buyer, held.reservation.id, 'pm_sandbox_visa'), 200) as {
    order: { id: string };
  };
  await signIn(page);
  // The order's page sends the tickets e-mail again, to the buyer's address.
  await page.goto(`${w.h.url}/console/shops/${m.shopId}/orders/${order.id}`);
  await page.getByText(buyerEmail).first().waitFor();
  await page.getByRole('button', { name: 'Send the tickets again' }).click();
  await page.locator('.feedback', { hasText: `The tickets are on their way to ${buyerEmail}.` }).waitFor();
  await page.getByRole('cell', { name: 'Tickets, sent again' }).waitFor();
  // Orders: a search by order id is kept in the URL, so a reload keeps it.
  await page.goto(`${w.h.url}/console/shops/${m.shopId}/orders`);
  await page.getByLabel('Search', { exact: true }).fill(order.id);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.waitForURL((u) => u.searchParams.get('q') === order.id);
  await page.reload();
  await page.locator(`main a[href$="/orders/${order.id}"]`).waitFor();
  assert.equal(await page.locator('main table.data tbody tr').count(), 1);
  assert.equal(await page.getByLabel('Search', { exact: true }).inputValue(), order.id);
  await page.goto(`${w.h.url}/console/shops/${m.shopId}/events/${m.eventId}`);
  await page.getByRole('button', { name: 'Edit General admission' }).click();
  await page.locator('#edit-tier-name').fill('GA');
  await page.locator('#edit-tier-max').fill('6');
  await page.locator('#edit-tier-submit').click();
  await page.locator('.feedback', { hasText: 'Tier GA saved.' }).first().waitFor();
  await page.getByRole('cell', { name: 'at most 6 per purchase' }).waitFor();
  await page.getByRole('button', { name: 'Retire GA' }).click();
  const dialog = page.locator('dialog#retire-tier');
  await dialog.waitFor();
  assert.equal(
    await page.evaluate(() => document.activeElement?.textContent),
    'Go back',
    'focus starts on the way back',
  );
  await dialog.getByRole('button', { name: 'Retire the tier' }).click();
  await page.getByRole('cell', { name: 'Retired', exact: true }).waitFor();
  // The shop window renames the shop; an empty name is refused under its field.
  await page.goto(`${w.h.url}/console/shops/${m.shopId}/events`);
  await page.locator('#shop-name').fill('');
  await page.getByRole('button', { name: 'Save the shop window' }).click();
  await page.locator('#shop-name[aria-invalid="true"]').waitFor();
  await page.locator('#shop-name-error', { hasText: 'Enter the shop’s name.' }).waitFor();
  await page.locator('#shop-name').fill('Renamed Hall');
  await page.getByRole('button', { name: 'Save the shop window' }).click();
  await page.locator('.feedback', { hasText: 'The shop window is saved.' }).waitFor();
  const [renamed] = await w.h.db.execute<{ name: string }>('select name from shops where id = ?', [m.shopId]);
  assert.equal(renamed?.name, 'Renamed Hall');

  // The owner invites an integrator (over REST, with a console session of the owner's), who accepts in the browser.
  const anon = restClient(w.h.url);
  must(await anon.post('/v1/console/sign-in', { email: ownerEmail }), 202);
  const link = /\/console\/verify#token=([\w-]+)/.exec(w.box.last(ownerEmail).text)!;
  const owner = restClient(
    w.h.url,
    must(await anon.post('/v1/console/sign-in/complete', { token: link[1] }), 200).token,
  );
  const integrator = `dev-${m.shopId.slice(-6)}@example.test`;
  must(await owner.post('/v1/console/team/invitations', { email: integrator, role: 'integrator' }), 201);
  const accept = /\/console\/accept#token=[\w-]+/.exec(w.box.last(integrator).text)!;
  await page.locator('#sign-out').click();
  await page.locator('main[data-view="sign-in"]').waitFor();
  await page.goto(`${w.h.url}${accept[0]}`);
  await page.locator('main[data-view="overview"]').waitFor();
  await page.locator('.who', { hasText: `${integrator} (integrator)` }).waitFor();

  await page.goto(`${w.h.url}/console/shops/${m.shopId}/events`);
  await page.locator('main[data-view="events"] table.data').waitFor();
  assert.equal(await page.locator('#event-title').count(), 0, 'no event form');
  await page.goto(`${w.h.url}/console/shops/${m.shopId}/events/${m.eventId}`);
  await page.getByRole('cell', { name: 'GA', exact: true }).waitFor();
  for (const id of ['new-pool-title', 'new-tier-name', 'edit-event-title'])
    assert.equal(await page.locator(`#${id}`).count(), 0, `no #${id}`);
  assert.equal(await page.getByRole('button', { name: 'Cancel the event' }).count(), 0);
  await page.goto(`${w.h.url}/console/shops/${m.shopId}/orders/${order.id}`);
  await page.locator('main[data-view="order"] table.data').first().waitFor();
  assert.equal(await page.locator('#refund-title, #resend-title').count(), 0, 'no refund, no resend');
  await noAxeViolations(page, 'an order for an integrator');
  assert.deepEqual(browser.problems, []);
});
