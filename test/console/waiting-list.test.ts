/**
 * The console's waiting-list view in headless Chromium (issue #37, 6): the owner sees a sold-out event's line in
 * order, with each person's place, tier and state (an offer with its hold's end), removes an entry by its button, and
 * the view passes axe at 1280 px and at 390 px without horizontal scroll.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertAccessible } from '../support/browser.ts';
import { must } from '../support/buyers.ts';
import { consoleBrowserSession, noAxeViolations } from '../support/console-browser.ts';
import { key } from '../support/spine.ts';

const s = consoleBrowserSession({ shop: { capacity: 1 } });

test('the owner sees the waiting list in line order with offers, removes an entry, and it passes axe at 390 px', async () => {
  // Sold out: the one place is held; two people wait; the hold is released, so the first gets an offer.
  const q = must(await s.m.api.post('/v1/ticketing/quotes', { tierId: s.m.tierId, quantity: 1 }), 201);
  const hold = must(await s.m.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  for (const email of ['first@example.com', 'second@example.com'])
    must(await s.m.api.post('/v1/ticketing/waiting-list', { tierId: s.m.tierId, quantity: 1, email }), 200);
  must(await s.m.api.post(`/v1/ticketing/reservations/${hold.reservation.id}/release`, {}), 200);

  const page = await s.browser.page();
  await page.setViewportSize({ width: 1280, height: 900 });
  await s.signIn(page);

  await page.getByRole('link', { name: 'Waiting list' }).click();
  await page.locator('main[data-view="waiting-list"]').waitFor();
  const rows = page.locator('main table tbody tr');
  await rows.first().waitFor();
  assert.deepEqual(
    (await rows.allTextContents()).map((r) => [r.includes('first@'), /Offered, held until/.test(r)]),
    [
      [true, true],
      [false, false],
    ],
  );
  assert.match((await rows.nth(1).textContent()) ?? '', /second@example\.com.*General admission.*Waiting/);
  await noAxeViolations(page, 'waiting list at 1280 px');
  await assertAccessible(page);

  await page.getByRole('button', { name: 'Remove first@example.com from the list' }).click();
  await page.locator('#waiting-list-feedback', { hasText: 'first@example.com was removed' }).waitFor();
  await page.locator('main table tbody tr', { hasText: 'Removed' }).waitFor();
  // The removed entry's offer passed on: the second person now holds the place.
  await page
    .locator('main table tbody tr', { hasText: 'second@example.com' })
    .getByText(/Offered/)
    .waitFor();

  await page.setViewportSize({ width: 390, height: 900 });
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `the waiting list at 390 px is ${wide} px wide`);
  await noAxeViolations(page, 'waiting list at 390 px');
  assert.deepEqual(s.problems(), []);
});
