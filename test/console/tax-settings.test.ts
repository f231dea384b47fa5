/**
 * The console's tax settings and an order's invoices in headless Chromium (issue #37, 4): the owner is told what a
 * wrong percent is, sets a rate and invoicing with the seller's details, and the order bought next shows its receipt
 * and its invoice INV-1 as PDF links on its page; the view passes axe.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertAccessible, axeOn, launchBrowser, type TestBrowser } from '../support/browser.ts';
import { merchantShop, must, startWorld, type MerchantShop, type World } from '../support/buyers.ts';
import { key } from '../support/spine.ts';
import { reportOnFailure } from '../browser/flows.ts';

let w: World;
let browser: TestBrowser;
let m: MerchantShop;
let ownerEmail: string;
reportOnFailure(() => ({ browser, h: w?.h }));
before(async () => {
  browser = await launchBrowser();
  w = await startWorld();
  m = await merchantShop(w.h, { priceMinor: 1190 });
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

test('the owner sets a rate and invoicing; the next order shows its receipt and invoice INV-1 as links', async () => {
  const page = await browser.page();
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${w.h.url}/console/sign-in`);
  await page.getByLabel('Work e-mail').fill(ownerEmail);
  await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
  await page.locator('.feedback', { hasText: 'a sign-in link is on its way' }).waitFor();
  const link = /\/console\/verify#token=[\w-]+/.exec(w.box.last(ownerEmail).text);
  assert.ok(link, 'a sign-in link in the mail');
  await page.goto(`${w.h.url}${link[0]}`);
  await page.locator('main[data-view="overview"]').waitFor();

  await page.getByRole('link', { name: 'Tax and invoices' }).click();
  await page.locator('main[data-view="tax-settings"]').waitFor();
  await page.getByText('No tax settings').waitFor();
  await page.getByLabel('Standard rate name').fill('VAT 19 %');
  await page.getByLabel('Standard rate, percent').fill('19.123');
  await page.getByRole('button', { name: 'Save tax settings' }).click();
  await page.locator('#tax-percent1-error', { hasText: 'at most two decimals' }).waitFor();
  await page.getByLabel('Standard rate, percent').fill('19');
  await page.getByRole('checkbox', { name: /numbered invoice/ }).check();
  await page.getByLabel("Seller's legal name").fill('Konzert GmbH');
  await page.getByLabel("Seller's address").fill('Hauptstr. 1, 10115 Berlin');
  await page.getByRole('button', { name: 'Save tax settings' }).click();
  await page.locator('#tax-feedback', { hasText: 'Saved.' }).waitFor();
  await page.getByText('VAT 19 % (19 %)').waitFor();
  await noAxeViolations(page, 'tax settings');
  await assertAccessible(page);

  const q = must(await m.api.post('/v1/ticketing/quotes', { tierId: m.tierId, quantity: 1 }), 201);
  assert.equal(q.tax.taxMinor, 190);
  const r = must(await m.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  const url = `/v1/ticketing/reservations/${r.reservation.id}/confirm`;
  const order = must(await m.api.post(url, { paymentMethod: 'pm_sandbox_visa' }, key()), 200).order;
  await page.goto(`${w.h.url}/console/shops/${m.shopId}/orders/${order.id}`);
  await page.locator('main[data-view="order"]').waitFor();
  await page.getByRole('button', { name: 'Show receipt and invoices' }).click();
  const links = page.locator('ul.documents a');
  await links.nth(1).waitFor();
  assert.deepEqual(await links.allTextContents(), ['Receipt (PDF)', 'Invoice INV-1 (PDF)']);
  const pdf = await fetch((await links.nth(1).getAttribute('href'))!);
  assert.equal(pdf.headers.get('content-type'), 'application/pdf');
  assert.deepEqual(
    browser.problems.filter((p) => !p.includes('status of 401 (Unauthorized)')),
    [],
  );
});
