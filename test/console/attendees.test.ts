/**
 * Attendees and questions in the console, in headless Chromium (issue #37, 3): the owner makes a tier ask the
 * attendee's name and a choice question in the tier form (a question without an id is refused under its field), the
 * API then shows the form; an order bought with answers shows each ticket's attendee on the order page; both pages
 * pass axe.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { axeOn, launchBrowser, type TestBrowser } from '../support/browser.ts';
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
  m = await merchantShop(w.h, { capacity: 5 });
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

test('the owner makes a tier ask names and a question; an order shows each ticket’s attendee', async () => {
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

  await page.goto(`${w.h.url}/console/shops/${m.shopId}/events/${m.eventId}`);
  await page.locator('main[data-view="event"]').waitFor();
  await page.getByRole('button', { name: 'Edit General admission' }).click();
  await page.locator('#edit-tier-attendee-name').selectOption('required');
  await page.locator('#edit-tier-add-question').click();
  await page.locator('#edit-tier-q0-label').fill('Meal');
  await page.locator('#edit-tier-submit').click();
  // No id yet: refused under the field, nothing saved.
  await page.locator('#edit-tier-q0-id[aria-invalid="true"]').waitFor();
  await page.locator('#edit-tier-q0-id').fill('diet');
  await page.locator('#edit-tier-q0-kind').selectOption('choice');
  await page.locator('#edit-tier-q0-options').fill('none, vegan');
  await page.locator('#edit-tier-q0-required').check();
  await noAxeViolations(page, 'the tier form with a question');
  await page.locator('#edit-tier-submit').click();
  await page.locator('main .feedback', { hasText: 'General admission' }).first().waitFor();

  const event = must(await m.api.get(`/v1/catalog/events/${m.eventId}`), 200);
  assert.deepEqual(event.tiers[0].attendeeForm, {
    name: 'required',
    questions: [{ id: 'diet', label: 'Meal', kind: 'choice', required: true, options: ['none', 'vegan'] }],
  });

  const q = must(await m.api.post('/v1/ticketing/quotes', { tierId: m.tierId, quantity: 1 }), 201);
  const r = must(await m.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  const attendees = [{ tierId: m.tierId, index: 0, name: 'Ada Lovelace', answers: { diet: 'vegan' } }];
  const done = must(
    await m.api.post(
      `/v1/ticketing/reservations/${r.reservation.id}/confirm`,
      { paymentMethod: 'pm_sandbox_visa', attendees },
      key(),
    ),
    200,
  );

  await page.goto(`${w.h.url}/console/shops/${m.shopId}/orders/${done.order.id}`);
  await page.locator('main[data-view="order"]').waitFor();
  await page.locator('main table tbody tr', { hasText: 'Ada Lovelace · diet: vegan' }).waitFor();
  await noAxeViolations(page, 'the order with an attendee');
  assert.deepEqual(
    browser.problems.filter((p) => !p.includes('status of 401 (Unauthorized)')),
    [],
  );
});
