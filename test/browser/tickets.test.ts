/**
 * "My tickets" in Chromium: a buyer who bought opens the page from the account navigation and sees each order with a
 * QR code per valid ticket that encodes the ticket's signed code (rendered again here with the `qrcode` package and
 * compared), a refunded ticket marked void without a QR code, a checked-in ticket marked so, and each order's receipt
 * as a PDF link; under the pages' strict CSP (no console error) and without serious accessibility violations.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import QRCode from 'qrcode';
import { restClient } from '../support/rest.ts';
import { signInTokenIn } from '../support/smtp.ts';
import { buy, merchantShop, must } from '../support/buyers.ts';
import { assertAccessible } from '../support/browser.ts';
import { newEmail, openFromNav, worldPerFile } from './flows.ts';

const w = worldPerFile();

const key = () => ({ 'idempotency-key': randomUUID() });

test('a buyer sees each ticket’s QR code (encoding its signed code) and state: valid, checked in, void after a refund', async () => {
  const m = await merchantShop(w.h, { discoverable: true, priceMinor: 4000 });
  const event = must(await m.api.patch(`/v1/integration/events/${m.eventId}`, { timeZone: 'Europe/Budapest' }), 200);
  const email = newEmail();
  const anon = restClient(w.h.url);
  // Signed in without a shop: the buyer buys in any discoverable shop, and sees its orders across shops.
  must(await anon.post('/v1/buyer/sign-in-links', { email, lang: 'en' }), 202);
  const bearer = must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.mail.last(email)) }), 201).token;
  const buyer = restClient(w.h.url, bearer);

  const first = must(await buy(buyer, m.tierId, 2, { paymentMethod: 'pm_sandbox_visa' }), 200).order;
  w.h.clock.advance(60_000); // ids sort by creation time: the second order is a minute later
  const second = must(await buy(buyer, m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200).order;
  // The event's time, in its zone and naming it, reads the same in the e-mail and on the page.
  const spaces = (s: string) => s.replace(/[\u00a0\u202f]/g, ' ');
  const local = new Intl.DateTimeFormat('en', {
    ...{ weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' },
    ...{ timeZoneName: 'short', timeZone: 'Europe/Budapest' },
  } as const).format(new Date(event.startsAt));
  assert.match(spaces(local), /GMT\+[12]|CES?T/, 'the zone is named');
  await w.h.app.orderMail.idle(); // the request only queues the e-mail
  const mail = w.mail.last(email);
  assert.match(mail.subject, /^Your tickets for /);
  assert.ok(spaces(mail.text).includes(spaces(local)), `the e-mail shows ${local}: ${mail.text}`);
  const [refunded, kept] = first.tickets;
  must(
    await m.api.post(
      `/v1/ticketing/orders/${first.id}/refunds`,
      { ticketIds: [refunded.id], reason: 'Cannot attend', returnToPool: true },
      key(),
    ),
    200,
  );
  must(
    await m.api.post(`/v1/ticketing/events/${m.eventId}/check-ins`, {
      code: second.tickets[0].signedCode,
      device: 'gate-1',
    }),
    200,
  );

  const page = await w.browser.page();
  await page.goto(`${w.h.url}/buyer/agents#session=${bearer}`);
  await page.locator('main[data-ready] #content:not([hidden])').waitFor();
  await openFromNav(page, 'My tickets', /\/buyer\/tickets\?lang=en$/);
  await page.locator('#tickets-orders article').nth(1).waitFor();
  assert.equal(await page.locator('h1').textContent(), 'My tickets');
  const meta = await page.locator(`article[data-order-id="${second.id}"] > p`).first().textContent();
  assert.ok(spaces(meta!).includes(spaces(local)), `the page shows ${local}: ${meta}`);
  // Newest order first.
  assert.deepEqual(
    await page.locator('#tickets-orders article').evaluateAll((as) => as.map((a) => a.getAttribute('data-order-id'))),
    [second.id, first.id],
  );

  const options = { type: 'svg', errorCorrectionLevel: 'M', margin: 2 } as const;
  const qrOf = async (ticketId: string) => {
    const img = page.locator(`li[data-ticket-id="${ticketId}"] img.qr`);
    const src = (await img.getAttribute('src'))!;
    assert.match(src, /^data:image\/svg\+xml;base64,/);
    const loaded = await img.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth > 0);
    assert.ok(loaded, 'the QR image loads under the page’s CSP');
    return {
      svg: Buffer.from(src.split(',')[1]!, 'base64').toString('utf8'),
      content: await img.getAttribute('data-qr-content'),
    };
  };
  for (const t of [kept, second.tickets[0]]) {
    const { svg, content } = await qrOf(t.id);
    assert.equal(content, t.signedCode, 'the QR code encodes the ticket’s signed code');
    assert.equal(svg, await QRCode.toString(t.signedCode, options), 'the same QR code as the signed code renders to');
  }
  const stateOf = (id: string) => page.locator(`li[data-ticket-id="${id}"]`);
  assert.equal(await stateOf(kept.id).getAttribute('data-status'), 'valid');
  assert.match((await stateOf(kept.id).textContent())!, /Ticket 2\s*Valid/);
  assert.equal(await stateOf(refunded.id).getAttribute('data-status'), 'void');
  assert.match((await stateOf(refunded.id).textContent())!, /Void.*Refunded on .*: this ticket no longer admits\./);
  assert.equal(await stateOf(refunded.id).locator('img').count(), 0, 'a void ticket shows no QR code');
  assert.equal(await stateOf(second.tickets[0].id).getAttribute('data-status'), 'checked_in');
  assert.match((await stateOf(second.tickets[0].id).textContent())!, /Checked in on /);
  assert.equal(await page.locator('li[data-ticket-id] img.qr').count(), 2);
  // Every order's receipt downloads as a PDF from its "Receipt and invoices" button (get_invoice).
  const card = page.locator(`article[data-order-id="${second.id}"]`);
  await card.getByRole('button', { name: 'Receipt and invoices' }).click();
  const receipt = card.locator('.documents a');
  await receipt.waitFor();
  assert.equal(await receipt.textContent(), 'Receipt (PDF)');
  const pdf = await fetch((await receipt.getAttribute('href'))!);
  assert.equal(pdf.headers.get('content-type'), 'application/pdf');
  await assertAccessible(page);
  assert.deepEqual(w.browser.problems, [], 'no console error (CSP included)');
  await page.close();
});

test('a buyer without orders is told so; signed out, the page asks to sign in', async () => {
  const email = newEmail();
  const anon = restClient(w.h.url);
  must(await anon.post('/v1/buyer/sign-in-links', { email, merchantId: w.shopId, lang: 'de' }), 202);
  const bearer = must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.mail.last(email)) }), 201).token;
  const page = await w.browser.page();
  await page.goto(`${w.h.url}/buyer/tickets?lang=de#session=${bearer}`);
  await page.locator('#tickets-empty:not([hidden])').waitFor();
  assert.equal(await page.locator('#tickets-empty').textContent(), 'Sie haben noch keine Tickets.');
  await page.goto(`${w.h.url}/buyer/tickets`);
  await page.locator('main[data-ready] #signed-out:not([hidden])').waitFor();
  assert.equal(await page.locator('#content').isHidden(), true);
  await page.close();
});

test('“Show older orders” appends each older order once, then hides; “Sign in” shows only while signed out', async () => {
  w.browser.problems.length = 0; // only this test's console errors count
  const m = await merchantShop(w.h, { discoverable: true, priceMinor: 1000, capacity: 30 });
  const email = newEmail();
  const anon = restClient(w.h.url);
  must(await anon.post('/v1/buyer/sign-in-links', { email, lang: 'en' }), 202);
  const bearer = must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.mail.last(email)) }), 201).token;
  const buyer = restClient(w.h.url, bearer);
  const made: string[] = [];
  for (let i = 0; i < 21; i++) {
    w.h.clock.advance(1000);
    made.push(must(await buy(buyer, m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200).order.id);
  }
  const page = await w.browser.page();
  await page.goto(`${w.h.url}/buyer/tickets?lang=en#session=${bearer}`);
  const shown = () =>
    page.locator('#tickets-orders article').evaluateAll((as) => as.map((a) => a.getAttribute('data-order-id')));
  await page.locator('#tickets-orders article').nth(19).waitFor();
  assert.deepEqual(await shown(), made.slice(1).reverse());
  const more = page.getByRole('button', { name: 'Show older orders' });
  await more.click();
  await page.locator('#tickets-orders article').nth(20).waitFor();
  await more.waitFor({ state: 'hidden' });
  assert.deepEqual(await shown(), [...made].reverse(), 'each order once, newest first');
  await assertAccessible(page);
  assert.deepEqual(w.browser.problems, []);
  // "Sign in" is offered only while signed out (the hand-off's session lives in memory: a new load is signed out).
  const nav = page.getByRole('navigation', { name: 'Your account' });
  assert.equal(await nav.getByRole('link', { name: 'Sign in' }).count(), 0);
  assert.equal(await nav.getByRole('link', { name: 'My tickets' }).count(), 1);
  await page.goto(`${w.h.url}/buyer/tickets?lang=en`);
  await page.locator('main[data-ready] #signed-out:not([hidden])').waitFor();
  await nav.getByRole('link', { name: 'Sign in' }).waitFor();
  await page.close();
});
