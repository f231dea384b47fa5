/**
 * The waiting-list offer's page (issue #37, item 6): the offer e-mail links to /buyer/offer, where the signed-in buyer
 * sees the places held for them and pays with a saved card (an order), or declines, which passes the places on.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, axeOn } from '../support/browser.ts';
import { restClient } from '../support/rest.ts';
import { codeIn, signInTokenIn } from '../support/smtp.ts';
import { must, reserveOne, shopWithTier, type Shop } from '../support/spine.ts';
import { newEmail, reportOnFailure, signIn, startWorld, type World } from './flows.ts';

let w: World;
let s: Shop;
let email: string;
let buyer: ReturnType<typeof restClient>;
let page: Page;
reportOnFailure(() => ({ browser: w?.browser, h: w?.h }));
before(async () => {
  w = await startWorld();
  s = await shopWithTier(w.h, { capacity: 1 });
  email = newEmail();
  // The buyer's REST session for the shop, and a saved card there.
  must(await restClient(w.h.url).post('/v1/buyer/sign-in-links', { email, merchantId: s.shopId }), 202);
  const anon = restClient(w.h.url);
  buyer = restClient(
    w.h.url,
    must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.mail.last(email)) }), 201).token,
  );
  const setup = must(await buyer.post('/v1/buyer/card-setups', {}), 201);
  must(await buyer.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod: 'pm_sandbox_visa' }), 200);
  const { challengeId } = must(await buyer.post('/v1/buyer/verification-codes', { purpose: 'save_card' }), 201);
  must(
    await buyer.post('/v1/buyer/instruments', {
      setupId: setup.setupId,
      spendingCapMinor: 100_000,
      challengeId,
      code: codeIn(w.mail.last(email)),
    }),
    201,
  );
  page = await w.browser.page();
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn({ ...w, shopId: s.shopId }, page, email);
});
after(async () => {
  await page?.close();
  await w?.close();
});

/** A sold-out tier of the shop's event the buyer waits for; a hold's release makes the offer, and its mail is sent. */
async function offerMade(tierId: string): Promise<{ entryId: string; link: string }> {
  const hold = await reserveOne(s.api, tierId, 1);
  const entry = must(await buyer.post('/v1/ticketing/waiting-list', { tierId, quantity: 1 }), 200);
  must(await s.api.post('/v1/ticketing/waiting-list', { tierId, quantity: 1, email: 'next@example.test' }), 200);
  must(await s.api.post(`/v1/ticketing/reservations/${hold.reservation.id}/release`, {}), 200);
  await w.h.app.sweeper.mailWaitingListOffers();
  const mail = w.mail.last(email);
  assert.match(mail.subject, /Places held for you: Concert/);
  const link = /https?:\/\/\S+\/buyer\/offer\?reservation=rsv_\w+&lang=en/.exec(mail.text)?.[0];
  assert.ok(link, `no offer link in: ${mail.text}`);
  return { entryId: entry.id, link };
}

test('the offer mail’s link shows the offer at 390 px; paying with a saved card (keyboard) makes the order', async () => {
  const { entryId, link } = await offerMade(s.tierId);
  await page.goto(link);
  const heading = page.getByRole('heading', { name: 'General admission for Concert' });
  await heading.waitFor();
  const text = await page.locator('#offer-details').innerText();
  assert.match(text, /Places: 1/);
  assert.match(text, /Total: €50\.00/);
  assert.match(text, /Held for you until /);
  assert.equal(await page.getByLabel('Pay with').locator('option').first().innerText(), 'Visa ending in 4242');
  await assertAccessible(page);
  const serious = (await axeOn(page).analyze()).violations.filter((v) => ['serious', 'critical'].includes(v.impact!));
  assert.deepEqual(
    serious.map((v) => v.id),
    [],
  );
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scrolling');

  await page.getByRole('button', { name: 'Pay €50.00' }).focus();
  await page.keyboard.press('Enter');
  await page.locator('#status', { hasText: /Paid\. Your order ord_\w+ is complete/ }).waitFor();
  assert.equal(await page.locator('#offer-form').isHidden(), true);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'offer-state');
  const entry = must(await buyer.get(`/v1/ticketing/waiting-list/${entryId}`), 200);
  assert.equal(entry.state, 'purchased');
  const r = must(await buyer.get(`/v1/ticketing/reservations/${entry.offer.reservationId}`), 200);
  assert.equal(r.reservation.state, 'completed');
  assert.deepEqual(w.browser.problems, []);
});

test('declining the offer on its page releases the hold, and the places go to the next in line', async () => {
  const pool = must(
    await s.api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: s.eventId, capacity: 1 }),
    201,
  );
  const tier = must(
    await s.api.post('/v1/integration/tiers', {
      eventId: s.eventId,
      poolId: pool.id,
      name: 'Balcony',
      priceMinor: 3000,
    }),
    201,
  );
  const { entryId, link } = await offerMade(tier.id);
  await page.goto(link.replace('lang=en', 'lang=de'));
  await page.getByRole('heading', { name: 'Balcony für Concert' }).waitFor();
  await page.getByRole('button', { name: 'Angebot ablehnen' }).click();
  await page.locator('#status', { hasText: 'Sie haben das Angebot abgelehnt.' }).waitFor();
  assert.equal(must(await buyer.get(`/v1/ticketing/waiting-list/${entryId}`), 200).state, 'declined');
  const list = must(await s.api.get(`/v1/integration/waiting-list?tierId=${tier.id}`), 200);
  assert.deepEqual(
    list.entries.map((e: { state: string }) => e.state),
    ['declined', 'offered'],
  );
  assert.deepEqual(w.browser.problems, []);
});
