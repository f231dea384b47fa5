/**
 * Attendees and questions in the console, in headless Chromium (issue #37, 3): the owner makes a tier ask the
 * attendee's name and a choice question in the tier form (a question without an id is refused under its field), the
 * API then shows the form; an order bought with answers shows each ticket's attendee on the order page; both pages
 * pass axe.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { must } from '../support/buyers.ts';
import { consoleBrowserSession, noAxeViolations } from '../support/console-browser.ts';
import { key } from '../support/spine.ts';

const s = consoleBrowserSession({ shop: { capacity: 5 } });

test('the owner makes a tier ask names and a question; an order shows each ticket’s attendee', async () => {
  const page = await s.browser.page();
  await page.setViewportSize({ width: 1280, height: 900 });
  await s.signIn(page);

  await page.goto(`${s.w.h.url}/console/shops/${s.m.shopId}/events/${s.m.eventId}`);
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

  const event = must(await s.m.api.get(`/v1/catalog/events/${s.m.eventId}`), 200);
  assert.deepEqual(event.tiers[0].attendeeForm, {
    name: 'required',
    questions: [{ id: 'diet', label: 'Meal', kind: 'choice', required: true, options: ['none', 'vegan'] }],
  });

  const q = must(await s.m.api.post('/v1/ticketing/quotes', { tierId: s.m.tierId, quantity: 1 }), 201);
  const r = must(await s.m.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  const attendees = [{ tierId: s.m.tierId, index: 0, name: 'Ada Lovelace', answers: { diet: 'vegan' } }];
  const done = must(
    await s.m.api.post(
      `/v1/ticketing/reservations/${r.reservation.id}/confirm`,
      { paymentMethod: 'pm_sandbox_visa', attendees },
      key(),
    ),
    200,
  );

  await page.goto(`${s.w.h.url}/console/shops/${s.m.shopId}/orders/${done.order.id}`);
  await page.locator('main[data-view="order"]').waitFor();
  await page.locator('main table tbody tr', { hasText: 'Ada Lovelace · diet: vegan' }).waitFor();
  await noAxeViolations(page, 'the order with an attendee');
  assert.deepEqual(s.problems(), []);
});
