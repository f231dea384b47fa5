/**
 * Orders of several tiers in the merchant's and the buyer's lists: order search, the orders export, "My tickets" and
 * the console's Orders view name every line (tier and places), not only the first tier; totals stay the order's; a
 * one-tier order answers exactly as before (no `lines`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { restClient } from '../support/rest.ts';
import { signInTokenIn } from '../support/smtp.ts';
import { key, must, newEmail } from '../support/buyers.ts';
import { consoleBrowserSession, go } from '../support/console-browser.ts';

const s = consoleBrowserSession({ shop: { discoverable: true, capacity: 10, priceMinor: 5000 } });

/** A CSV download's lines (without the BOM and the last line break). */
async function csvLines(url: string): Promise<string[]> {
  const text = await (await fetch(url)).text();
  return text
    .replace(/^\uFEFF/, '')
    .split('\r\n')
    .slice(0, -1);
}

test('an order of two tiers shows both lines in the order search, the export, My tickets and the console', async () => {
  const { w, m } = s;
  const pool = must(
    await m.api.post('/v1/integration/pools', { merchantId: m.shopId, eventId: m.eventId, capacity: 5 }),
    201,
  );
  const child = must(
    await m.api.post('/v1/integration/tiers', { eventId: m.eventId, poolId: pool.id, name: 'Child', priceMinor: 2500 }),
    201,
  );
  const adult = must(await m.api.patch(`/v1/integration/tiers/${m.tierId}`, { name: 'Adult' }), 200);
  const email = newEmail();
  const anon = restClient(w.h.url);
  must(await anon.post('/v1/buyer/sign-in-links', { email, lang: 'en' }), 202);
  const bearer = must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.box.last(email)) }), 201).token;
  const buyer = restClient(w.h.url, bearer);
  const buyLines = async (lines: { tierId: string; quantity: number }[]) => {
    const q = must(await buyer.post('/v1/ticketing/quotes', { lines }), 201);
    const r = must(await buyer.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
    const body = { paymentMethod: 'pm_sandbox_visa' };
    return must(await buyer.post(`/v1/ticketing/reservations/${r.reservation.id}/confirm`, body, key()), 200).order;
  };
  const single = await buyLines([{ tierId: m.tierId, quantity: 1 }]);
  w.h.clock.advance(60_000); // newest first: the two-tier order is a minute later
  const multi = await buyLines([
    { tierId: child.id, quantity: 1 },
    { tierId: m.tierId, quantity: 2 },
  ]);
  assert.equal(multi.totalMinor, 12500);

  // The order search: the lines in purchase order; tierName, quantity and the total as before.
  const found = must(await m.api.get(`/v1/ticketing/order-search?merchantId=${m.shopId}`), 200).orders;
  assert.deepEqual(
    found.map((o: any) => [o.id, o.tierName, o.quantity, o.totalMinor]),
    [
      [multi.id, 'Child', 3, 12500],
      [single.id, adult.name, 1, 5000],
    ],
  );
  assert.deepEqual(found[0].lines, [
    { tierId: child.id, tierName: 'Child', quantity: 1 },
    { tierId: m.tierId, tierName: 'Adult', quantity: 2 },
  ]);
  assert.equal('lines' in found[1], false, 'a one-tier order answers as before');

  // The orders export: a multi-line order's tier_name names each line; a one-tier order's row is unchanged.
  const link = must(await m.api.post('/v1/ticketing/exports', { merchantId: m.shopId, kind: 'orders' }), 201);
  const rows = (await csvLines(link.downloadUrl)).slice(1).map((l) => l.split(','));
  assert.deepEqual(
    rows.map((r) => [r[0], r[7], r[8], r[9]]),
    [
      [single.id, 'Adult', '1', '5000'],
      [multi.id, '1 × Child; 2 × Adult', '3', '12500'],
    ],
  );

  // My tickets (REST): the same lines for the buyer; the one-tier order without.
  const mine = must(await buyer.get('/v1/buyer/tickets'), 200).orders;
  assert.deepEqual(
    mine.map((o: any) => [o.orderId, o.lines?.map((l: any) => `${l.quantity} ${l.tierName}`)]),
    [
      [multi.id, ['1 Child', '2 Adult']],
      [single.id, undefined],
    ],
  );

  const page = await s.browser.page();
  // "My tickets": the order's line under its title names both tiers.
  await page.goto(`${w.h.url}/buyer/tickets?lang=en#session=${bearer}`);
  const meta = page.locator(`article[data-order-id="${multi.id}"] > p`).first();
  await meta.waitFor();
  assert.match((await meta.textContent())!, / · 1 × Child, 2 × Adult · sold by /);
  // The console's Orders view: the event column names both tiers with their places.
  await s.signIn(page);
  await go(page, `/console/shops/${m.shopId}/orders`, 'orders');
  const row = page.locator('main tr', { hasText: multi.id });
  await row.waitFor();
  assert.match((await row.textContent())!, /Concert · 1 × Child, 2 × Adult/);
  const plain = page.locator('main tr', { hasText: single.id });
  assert.match((await plain.textContent())!, /Concert · Adult/);
  assert.deepEqual(s.problems(), []);
  await page.close();
});
