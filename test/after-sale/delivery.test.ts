/**
 * The buyer's order confirmation (tickets with QR codes, receipt) and refund e-mails arrive over SMTP in the buyer's
 * language.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { restClient } from '../support/rest.ts';
import { signInTokenIn } from '../support/smtp.ts';
import { buy, key, merchantShop, must, newEmail, startWorld, type World } from '../support/buyers.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

/** A full buyer session for a new address that chose `lang` when signing in. */
async function buyerIn(lang: string): Promise<{ email: string; api: ReturnType<typeof restClient> }> {
  const email = newEmail();
  const anon = restClient(w.h.url);
  must(await anon.post('/v1/buyer/sign-in-links', { email, lang }), 202);
  const session = must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.box.last(email)) }), 201);
  return { email, api: restClient(w.h.url, session.token) };
}

test('the confirmation and the refund e-mail arrive in the buyer’s language, with tickets, QR codes and a receipt', async () => {
  const base = await merchantShop(w.h, { discoverable: true });
  const shop = must(
    await base.api.post('/v1/integration/shops', {
      name: 'Halle Süd',
      currency: 'EUR',
      feePerTicketMinor: 150,
      discoverable: true,
    }),
    201,
  );
  const startsAt = new Date(w.h.clock.now().getTime() + 30 * 86_400_000).toISOString();
  const event = must(
    await base.api.post('/v1/integration/events', { merchantId: shop.id, title: 'Concert', startsAt }),
    201,
  );
  const pool = must(
    await base.api.post('/v1/integration/pools', { merchantId: shop.id, eventId: event.id, capacity: 10 }),
    201,
  );
  const tier = must(
    await base.api.post('/v1/integration/tiers', {
      eventId: event.id,
      poolId: pool.id,
      name: 'General admission',
      priceMinor: 5000,
    }),
    201,
  );
  const m = { api: base.api, tierId: tier.id };
  const b = await buyerIn('de');
  const before = w.box.count(b.email);
  const order = must(await buy(b.api, m.tierId, 2, { paymentMethod: 'pm_sandbox_visa' }), 200).order;
  // The request only queues the e-mail; the background worker sends it (kicked after the commit).
  await w.h.app.orderMail.idle();
  assert.equal(w.box.count(b.email), before + 1);
  const mail = w.box.last(b.email);
  assert.equal(mail.subject, 'Ihre Tickets für Concert');
  assert.match(mail.text, /Vielen Dank für Ihre Bestellung bei /);
  for (const t of order.tickets) {
    assert.ok(mail.text.includes(t.id), 'each ticket is listed');
    assert.ok(mail.text.includes(t.signedCode), 'with its verifiable code');
  }
  assert.match(mail.text, /Tickets: 2 × General admission zu je 50,00\s€/);
  assert.match(mail.text, /Zwischensumme: 100,00\s€/);
  assert.match(mail.text, /Gebühren: 3,00\s€/);
  assert.match(mail.text, /Bezahlt insgesamt: 103,00\s€ \(EUR\)/);
  assert.match(mail.text, new RegExp(`Bestellung: ${order.id}`));
  assert.match(mail.text, /Verkauft von: Halle Süd/);
  // One QR code per ticket, inline in the HTML part.
  const pngs = mail.attachments.filter((a) => a.contentType === 'image/png');
  assert.equal(pngs.length, 2);
  for (const p of pngs) {
    assert.ok(p.content.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'a PNG');
    assert.match(p.cid ?? '', /^qr-tkt_.+@tessera$/);
  }
  // The parser inlines cid: images into the HTML it hands back: one image per ticket.
  assert.equal(mail.html.match(/<img /g)?.length, 2);

  must(
    await m.api.post(
      `/v1/ticketing/orders/${order.id}/refunds`,
      { ticketIds: [order.tickets[0].id], reason: 'Doppelt gekauft', returnToPool: true },
      key(),
    ),
    200,
  );
  await w.h.app.orderMail.idle();
  assert.equal(w.box.count(b.email), before + 2);
  const refund = w.box.last(b.email);
  assert.equal(refund.subject, `Erstattung für Ihre Bestellung ${order.id}`);
  assert.match(refund.text, /hat Ihnen 51,50\s€ für Ihre Bestellung/);
  assert.match(refund.text, /Grund: Doppelt gekauft/);
  assert.ok(refund.text.includes(order.tickets[0].id));
});

test('a buyer who chose French gets French e-mails; a merchant’s own sale sends none', async () => {
  const m = await merchantShop(w.h, { discoverable: true, priceMinor: 1250 });
  const b = await buyerIn('fr');
  const order = must(await buy(b.api, m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200).order;
  await w.h.app.orderMail.idle();
  const mail = w.box.last(b.email);
  assert.equal(mail.subject, 'Vos billets pour Concert');
  assert.match(mail.text, /Total payé : 12,50\s€ \(EUR\)/);
  assert.ok(mail.text.includes(order.tickets[0].id));
  const sent = w.box.messages.length;
  must(await buy(m.api, m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200);
  await w.h.app.orderMail.idle();
  assert.equal(w.box.messages.length, sent);
});
