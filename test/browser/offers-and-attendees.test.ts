/**
 * What a buyer sees of their purchases (issue #37): the waiting-list offer's page (item 6), which the offer e-mail links
 * to, where the signed-in buyer pays with a saved card (an order) or declines, which passes the places on; and each
 * ticket's attendee name (item 3) in get_reservation before paying, in the order e-mail and on My tickets.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { assertAccessible, axeOn } from '../support/browser.ts';
import { restClient } from '../support/rest.ts';
import { codeIn, signInTokenIn } from '../support/smtp.ts';
import { key, must, reserveOne, shopWithTier, type Shop } from '../support/spine.ts';
import { newEmail, reportOnFailure, signIn, startWorld, type World } from './flows.ts';

let w: World;
let s: Shop;
let email: string;
let buyer: ReturnType<typeof restClient>;
let page: Page;
let cardId: string;
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
  cardId = must(
    await buyer.post('/v1/buyer/instruments', {
      setupId: setup.setupId,
      spendingCapMinor: 100_000,
      challengeId,
      code: codeIn(w.mail.last(email)),
    }),
    201,
  ).instrument.id;
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

test('attendee names: get_reservation echoes them before paying; the order e-mail and My tickets show them', async () => {
  const pool = must(
    await s.api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: s.eventId, capacity: 5 }),
    201,
  );
  const tier = must(
    await s.api.post('/v1/integration/tiers', {
      eventId: s.eventId,
      poolId: pool.id,
      name: 'Stalls',
      priceMinor: 2000,
      attendeeForm: { name: 'optional', questions: [] },
    }),
    201,
  );
  const quote = must(await buyer.post('/v1/ticketing/quotes', { tierId: tier.id, quantity: 2 }), 201);
  const attendees = [
    { tierId: tier.id, index: 0, name: 'Ada Lovelace' },
    { tierId: tier.id, index: 1, name: 'Ödön Lővy' },
  ];
  const held = must(await buyer.post('/v1/ticketing/reservations', { quoteId: quote.quoteId, attendees }, key()), 201);
  const read = must(await buyer.get(`/v1/ticketing/reservations/${held.reservation.id}`), 200);
  assert.deepEqual(read.reservation.attendees, attendees);
  const paid = must(
    await buyer.post(`/v1/ticketing/reservations/${held.reservation.id}/confirm`, { instrumentId: cardId }, key()),
    200,
  );
  assert.equal(paid.reservation.state, 'completed');
  await w.h.app.orderMail.idle();
  const mail = w.mail.last(email);
  assert.match(mail.subject, /Your tickets for Concert/);
  assert.match(mail.text, /Ticket 1 \(Stalls\): tkt_\w+ · Attendee: Ada Lovelace/);
  assert.match(mail.text, /Ticket 2 \(Stalls\): tkt_\w+ · Attendee: Ödön Lővy/);

  await page.goto(`${w.h.url}/buyer/tickets?lang=hu`);
  await page.locator('main[data-ready] #tickets-orders .ticket-attendee').first().waitFor();
  const names = await page.locator(`[data-ticket-id] .ticket-attendee`).allInnerTexts();
  assert.deepEqual(names.slice(0, 2), ['Résztvevő: Ada Lovelace', 'Résztvevő: Ödön Lővy']);
  assert.deepEqual(w.browser.problems, []);
});

test('signed out, the offer page’s sign-in link e-mails a link that comes back to the offer', async () => {
  const pool = must(
    await s.api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: s.eventId, capacity: 1 }),
    201,
  );
  const tier = must(
    await s.api.post('/v1/integration/tiers', {
      eventId: s.eventId,
      poolId: pool.id,
      name: 'Gallery',
      priceMinor: 1000,
    }),
    201,
  );
  const { link } = await offerMade(tier.id);
  await page.context().clearCookies(); // the last test: the buyer's page session goes
  await page.goto(link);
  await page.getByRole('link', { name: 'Sign in with your e-mail' }).click();
  await page.waitForURL(/\/buyer\/sign-in\?.*offer=rsv_/);
  await page.locator('main[data-ready]').waitFor();
  await page.locator('#email').fill(email);
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  await page.locator('#sign-in-sent:not([hidden])').waitFor();
  const back = /https?:\/\/\S+\/buyer\/verify\?\S+#token=[\w-]+/.exec(w.mail.last(email).text)?.[0];
  assert.ok(back, 'a sign-in link');
  await page.goto(back);
  await page.waitForURL(new RegExp(`/buyer/offer\\?reservation=${/reservation=(rsv_\w+)/.exec(link)![1]}`));
  await page.getByRole('heading', { name: 'Gallery for Concert' }).waitFor();
  assert.deepEqual(w.browser.problems, []);
});
