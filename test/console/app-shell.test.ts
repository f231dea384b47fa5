/**
 * The console application's shell in headless Chromium: every /console path answers the app under a strict CSP; sign-in
 * from the e-mailed link opens the signed-in shell; deep links, back and forward, the 404 view, the shop in the URL,
 * focus on the view's heading, languages, sign-out; editing and retiring a tier; an integrator's read-only sale views.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAccessible, focusIs } from '../support/browser.ts';
import { newEmail, signIn as signInBuyer } from '../support/buyers.ts';
import { consoleBrowserSession, noAxeViolations } from '../support/console-browser.ts';
import { restClient } from '../support/rest.ts';
import { confirmWith, must, reserveOne } from '../support/spine.ts';

const s = consoleBrowserSession();

test('every console path answers the application under a strict CSP, with no inline script or style', async () => {
  for (const path of ['/console', '/console/sign-in', '/console/shops/shop_x/orders/ord_y', '/console/nothing-here']) {
    const res = await fetch(`${s.w.h.url}${path}`);
    assert.equal(res.status, 200, path);
    const csp = res.headers.get('content-security-policy') ?? '';
    for (const rule of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"])
      assert.ok(csp.includes(rule), `${path}: ${csp}`);
    const html = await res.text();
    assert.match(html, /<div id="app">/);
    assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, `${path} has an inline script`);
    assert.doesNotMatch(html, /\sstyle=|<style/, `${path} has inline style`);
  }
  const js = await fetch(`${s.w.h.url}/console/assets/console.js`);
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /javascript/);
  const de = (await (await fetch(`${s.w.h.url}/console/assets/i18n/de.json`)).json()) as { lang: string };
  assert.ok(['de', 'en'].includes(de.lang));
});

test('sign-in from the e-mailed link opens the shell; deep links, back and forward, 404 and focus work', async () => {
  const page = await s.browser.page();
  await page.goto(`${s.w.h.url}/console/sign-in`);
  await page.locator('main[data-view="sign-in"]').waitFor();
  await assertAccessible(page);
  await noAxeViolations(page, 'sign-in');
  await s.signIn(page);
  assert.equal(new URL(page.url()).pathname, `/console/shops/${s.m.shopId}/overview`);
  assert.ok(!page.url().includes('token'), 'the one-time token is gone from the address bar');
  await assertAccessible(page);
  await noAxeViolations(page, 'overview');

  await page.getByRole('link', { name: 'Orders' }).click();
  await page.locator('main[data-view="orders"]').waitFor();
  await focusIs(page, 'view-title');
  assert.equal(new URL(page.url()).pathname, `/console/shops/${s.m.shopId}/orders`);
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
  const other = await s.w.h.merchant();
  for (const path of ['/console/no-such-view', `/console/shops/${other.shopId}/orders`]) {
    await page.goto(`${s.w.h.url}${path}`);
    await page.locator('main[data-view="not-found"] #view-title', { hasText: 'Page not found' }).waitFor();
  }
  await noAxeViolations(page, 'not found');
  // Sign-out ends the session: a reload then asks to sign in.
  await page.locator('#sign-out').click();
  await page.locator('main[data-view="sign-in"]').waitFor();
  await page.reload();
  await page.locator('main[data-view="sign-in"]').waitFor();
  // A deep link while signed out: sign in, and the e-mailed link lands on the view that was asked for.
  const deep = `/console/shops/${s.m.shopId}/events`;
  await page.goto(`${s.w.h.url}${deep}`);
  await page.locator('main[data-view="sign-in"]').waitFor();
  await page.getByLabel('Work e-mail').fill(s.ownerEmail);
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await page.locator('.feedback', { hasText: 'a sign-in link is on its way' }).waitFor();
  await page.goto(`${s.w.h.url}${/\/console\/verify#token=[\w-]+/.exec(s.w.box.last(s.ownerEmail).text)![0]}`);
  await page.locator('main[data-view="events"]').waitFor();
  assert.equal(new URL(page.url()).pathname, deep);
  // A signed-out page asks the server nothing (the session cookie's readable companion says so): no 401 either.
  assert.deepEqual(s.browser.problems, []);
});

test('an owner resends an order’s tickets, edits and retires a tier; an integrator gets no write forms', async () => {
  const page = await s.browser.page();
  // A buyer signed in on the buyer pages buys two tickets: the order carries the buyer's e-mail.
  const buyerEmail = newEmail();
  const buyer = restClient(s.w.h.url, await signInBuyer(s.w, buyerEmail, s.m.shopId));
  const held = await reserveOne(buyer, s.m.tierId, 2);
  const { order } = must(await confirmWith(buyer, held.reservation.id, 'pm_sandbox_visa'), 200) as {
    order: { id: string };
  };
  await s.signIn(page);
  // The order's page sends the tickets e-mail again, to the buyer's address.
  await page.goto(`${s.w.h.url}/console/shops/${s.m.shopId}/orders/${order.id}`);
  await page.getByText(buyerEmail).first().waitFor();
  await page.getByRole('button', { name: 'Send the tickets again' }).click();
  await page.locator('.feedback', { hasText: `The tickets are on their way to ${buyerEmail}.` }).waitFor();
  await page.getByRole('cell', { name: 'Tickets, sent again' }).waitFor();
  // Orders: a search by order id is kept in the URL, so a reload keeps it.
  await page.goto(`${s.w.h.url}/console/shops/${s.m.shopId}/orders`);
  await page.getByLabel('Search', { exact: true }).fill(order.id);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.waitForURL((u) => u.searchParams.get('q') === order.id);
  await page.reload();
  await page.locator(`main a[href$="/orders/${order.id}"]`).waitFor();
  assert.equal(await page.locator('main table.data tbody tr').count(), 1);
  assert.equal(await page.getByLabel('Search', { exact: true }).inputValue(), order.id);
  await page.goto(`${s.w.h.url}/console/shops/${s.m.shopId}/events/${s.m.eventId}`);
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
  await page.goto(`${s.w.h.url}/console/shops/${s.m.shopId}/events`);
  await page.locator('#shop-name').fill('');
  await page.getByRole('button', { name: 'Save the shop window' }).click();
  await page.locator('#shop-name[aria-invalid="true"]').waitFor();
  await page.locator('#shop-name-error', { hasText: 'Enter the shop’s name.' }).waitFor();
  await page.locator('#shop-name').fill('Renamed Hall');
  await page.getByRole('button', { name: 'Save the shop window' }).click();
  await page.locator('.feedback', { hasText: 'The shop window is saved.' }).waitFor();
  const [renamed] = await s.w.h.db.execute<{ name: string }>('select name from shops where id = ?', [s.m.shopId]);
  assert.equal(renamed?.name, 'Renamed Hall');

  // The owner invites an integrator (over REST, with a console session of the owner's), who accepts in the s.browser.
  const anon = restClient(s.w.h.url);
  must(await anon.post('/v1/console/sign-in', { email: s.ownerEmail }), 202);
  const link = /\/console\/verify#token=([\w-]+)/.exec(s.w.box.last(s.ownerEmail).text)!;
  const owner = restClient(
    s.w.h.url,
    must(await anon.post('/v1/console/sign-in/complete', { token: link[1] }), 200).token,
  );
  const integrator = `dev-${s.m.shopId.slice(-6)}@example.test`;
  must(await owner.post('/v1/console/team/invitations', { email: integrator, role: 'integrator' }), 201);
  const accept = /\/console\/accept#token=[\w-]+/.exec(s.w.box.last(integrator).text)!;
  await page.locator('#sign-out').click();
  await page.locator('main[data-view="sign-in"]').waitFor();
  await page.goto(`${s.w.h.url}${accept[0]}`);
  await page.locator('main[data-view="overview"]').waitFor();
  await page.locator('.who', { hasText: `${integrator} (integrator)` }).waitFor();

  await page.goto(`${s.w.h.url}/console/shops/${s.m.shopId}/events`);
  await page.locator('main[data-view="events"] table.data').waitFor();
  assert.equal(await page.locator('#event-title').count(), 0, 'no event form');
  await page.goto(`${s.w.h.url}/console/shops/${s.m.shopId}/events/${s.m.eventId}`);
  await page.getByRole('cell', { name: 'GA', exact: true }).waitFor();
  for (const id of ['new-pool-title', 'new-tier-name', 'edit-event-title'])
    assert.equal(await page.locator(`#${id}`).count(), 0, `no #${id}`);
  assert.equal(await page.getByRole('button', { name: 'Cancel the event' }).count(), 0);
  await page.goto(`${s.w.h.url}/console/shops/${s.m.shopId}/orders/${order.id}`);
  await page.locator('main[data-view="order"] table.data').first().waitFor();
  assert.equal(await page.locator('#refund-title, #resend-title').count(), 0, 'no refund, no resend');
  await noAxeViolations(page, 'an order for an integrator');
  assert.deepEqual(s.browser.problems, []);
});
