/**
 * Tax and invoices (issue #37, item 4), through REST: quotes with tax included and added, a shop without tax answering
 * as before, gapless invoice numbers under concurrent confirms and declined payments, a credit note per refund, the
 * receipt and invoice PDFs in all six languages (text extracted), and the invoice attached to the confirmation e-mail.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { extractText, getDocumentProxy } from 'unpdf';
import { restClient } from '../support/rest.ts';
import { key, merchantShop, must, newEmail, startWorld, type MerchantShop, type World } from '../support/buyers.ts';
import { assertInvariant } from '../support/invariant.ts';

const LANGS = ['en', 'de', 'es', 'fr', 'hu', 'pt-BR'] as const;
/** A word each language's invoice must show (Hungarian with ő, which the standard PDF fonts lack). */
const INVOICE_WORD: Record<(typeof LANGS)[number], string> = {
  en: 'Invoice',
  de: 'Rechnung',
  es: 'Factura',
  fr: 'Facture',
  hu: 'Vevő',
  'pt-BR': 'Fatura',
};
const SELLER = { legalName: 'Őrség Koncert Kft.', address: 'Fő utca 1, 1011 Budapest', vatId: 'HU12345678' };

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

async function withTax(m: MerchantShop, settings: Record<string, unknown>) {
  return must(await m.api.put(`/v1/integration/shops/${m.shopId}/tax-settings`, settings), 200);
}

const quote = async (m: MerchantShop, tierId: string, quantity: number) =>
  must(await m.api.post('/v1/ticketing/quotes', { tierId, quantity }), 201);

/** One ticket bought with the shop's API key. */
async function buyPlain(m: MerchantShop) {
  const q = await quote(m, m.tierId, 1);
  const r = must(await m.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  const url = `/v1/ticketing/reservations/${r.reservation.id}/confirm`;
  return must(await m.api.post(url, { paymentMethod: 'pm_sandbox_visa' }, key()), 200);
}

async function pdfText(url: string): Promise<string> {
  const res = await fetch(url);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/pdf');
  const bytes = new Uint8Array(await res.arrayBuffer());
  return (await extractText(await getDocumentProxy(bytes), { mergePages: true })).text;
}

test('quotes carry the tax: extracted from inclusive prices, added to exclusive ones, per line and rate', async () => {
  const plain = await merchantShop(w.h, { priceMinor: 1190 });
  const before = await quote(plain, plain.tierId, 2);
  assert.equal(before.tax, undefined);
  assert.equal(before.totalMinor, 2380);
  assert.equal(before.subtotalMinor, 2380);

  const incl = await merchantShop(w.h, { priceMinor: 1190 });
  const set = await withTax(incl, { rates: [{ id: 'std', name: 'VAT 19 %', percent: 19 }] });
  assert.equal(set.settings.pricesIncludeTax, true);
  const q1 = await quote(incl, incl.tierId, 2);
  assert.equal(q1.totalMinor, 2380, 'included tax does not change the total');
  assert.deepEqual(q1.tax, {
    pricesIncludeTax: true,
    rates: [{ rateId: 'std', name: 'VAT 19 %', percent: 19, netMinor: 2000, taxMinor: 380, grossMinor: 2380 }],
    netMinor: 2000,
    taxMinor: 380,
    grossMinor: 2380,
  });

  const excl = await merchantShop(w.h, { priceMinor: 1055 });
  await withTax(excl, {
    pricesIncludeTax: false,
    rates: [
      { id: 'std', name: 'MwSt 19 %', percent: 19 },
      { id: 'red', name: 'MwSt 7 %', percent: 7.25 },
    ],
    tierRates: [{ tierId: excl.tierId, rateId: 'red' }],
  });
  const q2 = await quote(excl, excl.tierId, 3);
  // 3 × 10.55 = 31.65 net; 7.25 % of it is 2.294625, rounded half away from zero on the line: 2.29.
  assert.equal(q2.tax.taxMinor, 229);
  assert.deepEqual(q2.tax.rates, [
    { rateId: 'red', name: 'MwSt 7 %', percent: 7.25, netMinor: 3165, taxMinor: 229, grossMinor: 3394 },
  ]);
  assert.equal(q2.subtotalMinor, 3165);
  assert.equal(q2.totalMinor, 3394, 'the added tax is charged');
  const r = must(await excl.api.post('/v1/ticketing/reservations', { quoteId: q2.quoteId }, key()), 201);
  const held = must(await excl.api.get(`/v1/ticketing/reservations/${r.reservation.id}`), 200);
  assert.deepEqual(held.reservation.tax, q2.tax, 'get_reservation carries the breakdown');
  const paid = must(
    await excl.api.post(
      `/v1/ticketing/reservations/${r.reservation.id}/confirm`,
      { paymentMethod: 'pm_sandbox_visa' },
      key(),
    ),
    200,
  );
  assert.equal(paid.payment.amountMinor, 3394);
  const order = must(await excl.api.get(`/v1/ticketing/orders/${paid.order.id}`), 200);
  assert.deepEqual(order.tax, q2.tax, 'get_order carries the breakdown');
  assert.equal(
    must(await plain.api.get(`/v1/ticketing/orders/${(await buyPlain(plain)).order.id}`), 200).tax,
    undefined,
  );
  // Several lines at two rates: each line taxed at its tier's rate, summed per rate in the shop's order of rates.
  const second = must(
    await excl.api.post('/v1/integration/tiers', {
      eventId: excl.eventId,
      poolId: excl.poolId,
      name: 'Standing',
      priceMinor: 500,
    }),
    201,
  );
  const multi = must(
    await excl.api.post('/v1/ticketing/quotes', {
      lines: [
        { tierId: excl.tierId, quantity: 1 },
        { tierId: second.id, quantity: 2 },
      ],
    }),
    201,
  );
  assert.deepEqual(
    multi.tax.rates.map((r: { rateId: string; netMinor: number; taxMinor: number }) => [
      r.rateId,
      r.netMinor,
      r.taxMinor,
    ]),
    [
      ['std', 1000, 190],
      ['red', 1055, 76],
    ],
  );
  assert.equal(multi.totalMinor, 2055 + 266);
  // A rate a tier names must exist; invoicing needs the seller.
  assert.equal(
    (
      await excl.api.put(`/v1/integration/shops/${excl.shopId}/tax-settings`, {
        rates: [{ id: 'a', name: 'A', percent: 5 }],
        tierRates: [{ tierId: excl.tierId, rateId: 'zz' }],
      })
    ).status,
    400,
  );
  assert.equal(
    (
      await excl.api.put(`/v1/integration/shops/${excl.shopId}/tax-settings`, {
        rates: [{ id: 'a', name: 'A', percent: 5 }],
        invoicing: true,
      })
    ).status,
    400,
  );
});

test('invoice numbers stay gapless under concurrent confirms and declined payments; refunds number on', async () => {
  const m = await merchantShop(w.h, { priceMinor: 2000, capacity: 40 });
  await withTax(m, {
    rates: [{ id: 'std', name: 'ÁFA 27 %', percent: 27 }],
    invoicing: true,
    invoicePrefix: 'T',
    seller: SELLER,
  });
  const holds = [];
  for (let i = 0; i < 12; i++) {
    const q = await quote(m, m.tierId, 1);
    holds.push(must(await m.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201));
  }
  const methods = holds.map((_, i) => (i % 3 === 2 ? 'pm_sandbox_declined' : 'pm_sandbox_visa'));
  const results = await Promise.all(
    holds.map((h, i) =>
      m.api.post(`/v1/ticketing/reservations/${h.reservation.id}/confirm`, { paymentMethod: methods[i] }, key()),
    ),
  );
  const paid = results.filter((r) => r.status === 200);
  assert.equal(paid.length, 8);
  assert.equal(results.filter((r) => r.status === 402).length, 4);
  // Declined holds pay again later, also concurrently.
  const retried = await Promise.all(
    holds
      .filter((_, i) => methods[i] === 'pm_sandbox_declined')
      .map((h) =>
        m.api.post(
          `/v1/ticketing/reservations/${h.reservation.id}/confirm`,
          { paymentMethod: 'pm_sandbox_visa' },
          key(),
        ),
      ),
  );
  assert.ok(retried.every((r) => r.status === 200));
  const list = must(await m.api.get(`/v1/ticketing/invoices?merchantId=${m.shopId}`), 200);
  assert.deepEqual(
    list.invoices.map((i: { number: string }) => i.number),
    Array.from({ length: 12 }, (_, i) => `T-${i + 1}`),
    'numbers 1..12, no gap, no duplicate',
  );
  assert.ok(list.invoices.every((i: { kind: string }) => i.kind === 'invoice'));
  await assertInvariant(w.h.db, m.poolId);

  const orderId = paid[0]!.body.order.id;
  must(
    await m.api.post(`/v1/ticketing/orders/${orderId}/refunds`, { reason: 'Storno', returnToPool: true }, key()),
    200,
  );
  const docs = must(await m.api.get(`/v1/ticketing/orders/${orderId}/invoices`), 200);
  assert.deepEqual(
    docs.documents.map((d: { kind: string; number: string | null }) => [d.kind, d.number]),
    [
      ['receipt', null],
      ['invoice', list.invoices.find((i: { orderId: string }) => i.orderId === orderId).number],
      ['credit_note', 'T-13'],
    ],
  );
  const credit = await pdfText(docs.documents[2].downloadUrl);
  assert.ok(credit.includes('T-13') && credit.includes(SELLER.legalName), credit);
  // Another organization's key does not see the order's documents.
  const stranger = await merchantShop(w.h);
  assert.equal((await stranger.api.get(`/v1/ticketing/orders/${orderId}/invoices`)).status, 404);
});

test('the buyer gets receipt and invoice PDFs in their language (all six); the mail attaches the invoice', async () => {
  const m = await merchantShop(w.h, { priceMinor: 1270, capacity: 20 });
  await withTax(m, { rates: [{ id: 'std', name: 'ÁFA 27 %', percent: 27 }], invoicing: true, seller: SELLER });
  for (const lang of LANGS) {
    const email = newEmail();
    const session = must(
      await m.api.post('/v1/integration/buyer-sessions', { merchantId: m.shopId, email, lang }),
      201,
    );
    const buyer = restClient(w.h.url, session.token);
    const q = must(await buyer.post('/v1/ticketing/quotes', { tierId: m.tierId, quantity: 1 }), 201);
    const r = must(await buyer.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
    const paid = must(
      await buyer.post(
        `/v1/ticketing/reservations/${r.reservation.id}/confirm`,
        { paymentMethod: 'pm_sandbox_visa' },
        key(),
      ),
      200,
    );
    const docs = must(await buyer.get(`/v1/ticketing/orders/${paid.order.id}/invoices`), 200);
    const invoice = docs.documents.find((d: { kind: string }) => d.kind === 'invoice');
    const text = await pdfText(invoice.downloadUrl);
    for (const needle of [
      INVOICE_WORD[lang],
      invoice.number,
      SELLER.legalName,
      SELLER.vatId,
      email,
      'General admission',
    ])
      assert.ok(text.includes(needle), `${lang}: the invoice shows ${needle}:\n${text}`);
    if (lang === 'en') {
      const receipt = await pdfText(docs.documents[0].downloadUrl);
      assert.ok(receipt.includes('Receipt') && receipt.includes('ÁFA 27 %'), receipt);
      await w.h.app.orderMail.idle();
      const mail = w.box.last(email);
      assert.match(mail.text, /ÁFA 27 % \(27 %\)/, 'the e-mail lists the tax per rate');
      const pdfs = mail.attachments.filter((a) => a.contentType === 'application/pdf');
      const texts = await Promise.all(
        pdfs.map(
          async (a) =>
            (await extractText(await getDocumentProxy(new Uint8Array(a.content)), { mergePages: true })).text,
        ),
      );
      assert.ok(
        texts.some((t) => t.includes(invoice.number)),
        'the invoice PDF is attached',
      );
    }
  }
  // A link past its 15 minutes answers 404.
  const [order] = await w.h.db.execute<{ id: string }>('select id from orders where shop_id = ? limit 1', [m.shopId]);
  const docs = must(await m.api.get(`/v1/ticketing/orders/${order!.id}/invoices`), 200);
  w.h.clock.advance(16 * 60_000);
  assert.equal((await fetch(docs.documents[0].downloadUrl)).status, 404);
});

test('a late payment refunded because its places were sold meanwhile gets no invoice: no number is used', async () => {
  const m = await merchantShop(w.h, { priceMinor: 1000, capacity: 1 });
  await withTax(m, { rates: [{ id: 'std', name: 'VAT 20 %', percent: 20 }], invoicing: true, seller: SELLER });
  const q = await quote(m, m.tierId, 1);
  const late = must(await m.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  const pending = await m.api.post(
    `/v1/ticketing/reservations/${late.reservation.id}/confirm`,
    { paymentMethod: 'pm_sandbox_async_success' },
    key(),
  );
  assert.equal(pending.status, 202);
  w.h.clock.advance(16 * 60_000);
  await w.h.app.sweeper.sweepExpiredHolds(w.h.clock.now(), 100);
  const sold = await buyPlain(m);
  await w.h.app.services.payments.settleDue();
  const view = must(await m.api.get(`/v1/ticketing/reservations/${late.reservation.id}`), 200);
  assert.equal(view.order.state, 'refunded');
  const list = must(await m.api.get(`/v1/ticketing/invoices?merchantId=${m.shopId}`), 200);
  assert.deepEqual(
    list.invoices.map((i: { number: string; orderId: string }) => [i.number, i.orderId]),
    [['INV-1', sold.order.id]],
  );
});
