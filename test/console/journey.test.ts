/**
 * The whole merchant journey through the console only, in headless Chromium: sign in from `/`, create an event, a
 * pool and two tiers (one with restrictions), see a purchase made over the API in Orders and the Overview, refund one
 * of its tickets (the amount shown before confirming), cancel the event (the confirmation says what happens to sold
 * tickets); keyboard only for the create-and-refund part; at 1280 px and 390 px with axe on every view; a reload keeps
 * the session and the view; back and forward move between views.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { assertAccessible, focusIs } from '../support/browser.ts';
import { consoleBrowserSession, noAxeViolations } from '../support/console-browser.ts';
import { restClient } from '../support/rest.ts';
import { confirmWith, must, reserveOne } from '../support/spine.ts';

const s = consoleBrowserSession({ merchant: (h) => h.merchant() });

/** Waits for the view `id`, then checks it: the house accessibility check and axe. */
async function viewIs(page: Page, id: string): Promise<void> {
  await page.locator(`main[data-view="${id}"] #view-title`).waitFor();
  await page.locator('main p[role="status"]', { hasText: 'Loading' }).waitFor({ state: 'detached' });
  await assertAccessible(page);
  await noAxeViolations(page, `${id} at ${page.viewportSize()?.width} px`);
}

/**
 * Presses Tab until the focused element matches `selector`, else Shift+Tab back to it: how a keyboard user moves to a
 * field or a row's link.
 */
async function tabToMatch(page: Page, selector: string): Promise<void> {
  // Forward when the target comes after the focus in the document, else backward (a date field takes a Tab per part).
  const where = () =>
    page.evaluate((s) => {
      const target = document.querySelector(s);
      const focus = document.activeElement;
      if (!target || !focus) return 'forward';
      if (focus === target) return 'there';
      return focus.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_PRECEDING ? 'backward' : 'forward';
    }, selector);
  for (let i = 0; i < 120; i++) {
    const now = await where();
    if (now === 'there') return;
    await page.keyboard.press(now === 'forward' ? 'Tab' : 'Shift+Tab');
  }
  const focus = await page.evaluate(
    (s) => `${document.activeElement?.outerHTML.slice(0, 120)}; target there: ${document.querySelector(s) !== null}`,
    selector,
  );
  assert.fail(`the keyboard never reached ${selector} (focus: ${focus})`);
}

/** Moves to the element `id` by keyboard. */
const tabTo = (page: Page, id: string) => tabToMatch(page, `#${id}`);

/** Moves to the field by keyboard, types. */
async function typeInto(page: Page, id: string, text: string): Promise<void> {
  await tabTo(page, id);
  await page.keyboard.type(text);
}

const feedback = (page: Page, text: string | RegExp) => page.locator('.feedback', { hasText: text }).first().waitFor();

test('a merchant runs a sale in the console: set up, sell, watch, refund, cancel', async () => {
  const page = await s.browser.page();
  await page.setViewportSize({ width: 1280, height: 900 });

  // Sign in from `/`.
  await page.goto(`${s.w.h.url}/`);
  await page.getByRole('link', { name: 'Merchant console' }).click();
  await viewIs(page, 'sign-in');
  await page.getByLabel('Work e-mail').fill(s.ownerEmail);
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await feedback(page, 'a sign-in link is on its way');
  const link = /\/console\/verify#token=[\w-]+/.exec(s.w.box.last(s.ownerEmail).text);
  assert.ok(link, 'the sign-in mail carries a /console/verify link');
  await page.goto(`${s.w.h.url}${link[0]}`);
  await viewIs(page, 'overview');
  assert.equal(new URL(page.url()).pathname, `/console/shops/${s.m.shopId}/overview`);

  // Keyboard only from here to the refund: an event, a pool, two tiers.
  await tabTo(page, 'nav-events');
  await page.keyboard.press('Enter');
  await viewIs(page, 'events');
  await focusIs(page, 'view-title');
  // An empty form: each error sits under its field, tied to it, and focus goes to the first.
  await tabTo(page, 'event-title');
  await page.keyboard.press('Enter');
  await page.locator('#event-title-error', { hasText: 'Enter a title.' }).waitFor();
  await focusIs(page, 'event-title');
  assert.match((await page.locator('#event-title').getAttribute('aria-describedby')) ?? '', /event-title-error/);
  assert.equal(await page.locator('#event-starts').getAttribute('aria-invalid'), 'true');
  await typeInto(page, 'event-title', 'Summer Night');
  await typeInto(page, 'event-venue', 'Harbour Stage');
  await tabTo(page, 'event-starts');
  await page.keyboard.type('15082030');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.type('1930');
  // The time zone: an unknown one is refused under its field; an IANA one (offered in the field's list) is kept.
  await typeInto(page, 'event-time-zone', 'Mars/Olympus');
  await page.keyboard.press('Enter');
  await page.locator('#event-time-zone-error', { hasText: 'Use an IANA time zone name' }).waitFor();
  await focusIs(page, 'event-time-zone');
  // The refusal is the server's 400, which Chromium logs; it is the only console problem expected.
  assert.deepEqual(s.browser.problems.splice(0), [
    'Failed to load resource: the server responded with a status of 400 (Bad Request)',
  ]);
  assert.ok(await page.locator('#time-zones option[value="Europe/Budapest"]').count(), 'the list offers IANA zones');
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('Europe/Budapest');
  await tabTo(page, 'event-title');
  await page.keyboard.press('Enter');
  await viewIs(page, 'event');
  await page.locator('#view-title', { hasText: 'Summer Night' }).waitFor();
  const eventId = new URL(page.url()).pathname.split('/').pop()!;
  assert.match(eventId, /^evt_/);

  await typeInto(page, 'new-pool-title', 'Stalls');
  await typeInto(page, 'new-pool-capacity', '100');
  await page.keyboard.press('Enter');
  await feedback(page, 'Pool Stalls added.');
  await typeInto(page, 'pool-capacity', '120');
  await page.keyboard.press('Enter');
  await feedback(page, 'Stalls now holds 120 places.');
  await typeInto(page, 'new-tier-name', 'Standard');
  await typeInto(page, 'new-tier-price', '25');
  await page.keyboard.press('Enter');
  await page.getByRole('cell', { name: 'Standard', exact: true }).waitFor();
  await typeInto(page, 'new-tier-name', 'Early bird');
  await typeInto(page, 'new-tier-price', '19.50');
  await typeInto(page, 'new-tier-max', '4');
  await typeInto(page, 'new-tier-geos', 'de at');
  await tabTo(page, 'new-tier-schemes-0');
  await page.keyboard.press('Space');
  await tabTo(page, 'new-tier-submit');
  await page.keyboard.press('Enter');
  await page.getByRole('cell', { name: 'Early bird', exact: true }).waitFor();
  await noAxeViolations(page, 'event with pools and tiers');

  const api = restClient(s.w.h.url, s.m.apiKey);
  const { event, tiers } = must(await api.get(`/v1/catalog/events/${eventId}`), 200) as {
    event: { timeZone: string };
    tiers: {
      id: string;
      name: string;
      maxQtyPerPurchase: number | null;
      allowedGeos: string[];
      allowedSchemes: string[];
    }[];
  };
  assert.equal(event.timeZone, 'Europe/Budapest');
  const early = tiers.find((t) => t.name === 'Early bird')!;
  assert.deepEqual([early.maxQtyPerPurchase, early.allowedGeos, early.allowedSchemes], [4, ['DE', 'AT'], ['visa']]);

  // A purchase over the API: two Standard tickets.
  const standard = tiers.find((t) => t.name === 'Standard')!;
  const held = await reserveOne(api, standard.id, 2);
  const { order } = must(await confirmWith(api, held.reservation.id, 'pm_sandbox_visa'), 200) as {
    order: { id: string };
  };
  // The test clock stands still; a minute on, the sale lies inside the overview's period (which ends, exclusive, now).
  s.w.h.clock.advance(60_000);

  // Orders: the purchase is there; its page refunds one ticket, the amount shown before confirming.
  await tabTo(page, 'nav-orders');
  await page.keyboard.press('Enter');
  await viewIs(page, 'orders');
  await tabToMatch(page, `a[href$="/orders/${order.id}"]`);
  await page.keyboard.press('Enter');
  await viewIs(page, 'order');
  await tabTo(page, 'refund-tickets-0');
  await page.keyboard.press('Space');
  await typeInto(page, 'refund-reason', 'Cannot come');
  await page.keyboard.press('Enter');
  const dialog = page.locator('dialog#confirm-refund');
  await dialog.locator('h2', { hasText: 'Refund €25.00?' }).waitFor();
  await noAxeViolations(page, 'refund confirmation');
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Enter');
  await feedback(page, '€25.00 refunded.');
  await page.locator('dd', { hasText: '€25.00' }).first().waitFor();

  // The overview shows it: net revenue €25.00, a chart with its text alternative.
  await page.locator('#nav-overview').click();
  await viewIs(page, 'overview');
  const panel = page.locator('section', { has: page.locator('h2', { hasText: 'Summer Night' }) });
  await panel.locator('dd', { hasText: '€25.00' }).first().waitFor();
  assert.match((await panel.locator('[role="img"]').getAttribute('aria-label')) ?? '', /2 tickets in all/);

  // Cancel the event: the confirmation says what happens to the sold ticket.
  await page.goto(`${s.w.h.url}/console/shops/${s.m.shopId}/events/${eventId}`);
  await viewIs(page, 'event');
  await page.getByRole('button', { name: 'Cancel the event' }).click();
  const cancel = page.locator('dialog#cancel-event');
  await cancel.getByText('1 ticket is sold').waitFor();
  await noAxeViolations(page, 'cancel confirmation');
  await cancel.getByRole('button', { name: 'Cancel the event and refund everyone' }).click();
  await page.getByText(/This event was cancelled/).waitFor();

  // Back and forward move between views; a reload keeps the session and the view.
  await page.goBack();
  await page.locator('main[data-view="overview"]').waitFor();
  await page.goForward();
  await page.locator('main[data-view="event"]').waitFor();
  await page.reload();
  await viewIs(page, 'event');
  assert.equal(new URL(page.url()).pathname, `/console/shops/${s.m.shopId}/events/${eventId}`);

  // The orders CSV (the Exports view) and each write in the audit log.
  await page.locator('#nav-exports').click();
  await viewIs(page, 'exports');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Download CSV' }).click(),
  ]);
  const csv = await readFile((await download.path())!, 'utf8');
  assert.ok(csv.startsWith('\uFEFForder_id,'), 'UTF-8 with a byte-order mark, orders columns');
  assert.match(csv, new RegExp(`${order.id},.*,partially_refunded,`));
  await page.locator('#nav-audit-log').click();
  await viewIs(page, 'audit-log');
  const tools = await page.locator('main table.data td code').allTextContents();
  for (const tool of ['create_event', 'create_pool', 'update_pool', 'create_tier', 'refund_order', 'cancel_event'])
    assert.ok(tools.includes(tool), `${tool} is in the audit log (${tools.join(', ')})`);
  assert.equal(tools.filter((x) => x === 'create_tier').length, 2);

  // At 390 px every view fits without sideways scrolling, and the sidebar is a menu.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [id, path] of [
    ['overview', 'overview'],
    ['events', 'events'],
    ['event', `events/${eventId}`],
    ['orders', 'orders'],
    ['order', `orders/${order.id}`],
    ['exports', 'exports'],
  ] as const) {
    await page.goto(`${s.w.h.url}/console/shops/${s.m.shopId}/${path}`);
    await viewIs(page, id);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${id} is ${width} px wide at 390 px`);
  }
  assert.equal(await page.locator('#sidebar').isVisible(), false, 'the sidebar is folded at 390 px');
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.locator('#nav-orders').click();
  await viewIs(page, 'orders');
  // A signed-out page asks the server nothing (the session cookie's readable companion says so): no 401 either.
  assert.deepEqual(s.browser.problems, []);
});
