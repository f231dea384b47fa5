/**
 * list_my_tickets (the "My tickets" page's data) over REST, MCP and A2A: a buyer sees its orders with each ticket's
 * state and a QR code that encodes the ticket's signed code (rendered again here with `qrcode` and compared); a void
 * ticket has no QR code; another buyer sees none of it; a merchant's key may not call it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import QRCode from 'qrcode';
import { restClient } from '../support/rest.ts';
import { SURFACES } from '../support/surfaces.ts';
import { buy, key, merchantShop, must, newEmail, signIn, startWorld, type World } from '../support/buyers.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

const svgOf = (dataUrl: string) =>
  Buffer.from(dataUrl.replace(/^data:image\/svg\+xml;base64,/, ''), 'base64').toString('utf8');

test('list_my_tickets over REST, MCP and A2A: states and QR codes of the buyer’s own tickets only', async () => {
  const m = await merchantShop(w.h, { discoverable: true, priceMinor: 3000 });
  const bearer = await signIn(w, newEmail());
  const order = must(
    await buy(restClient(w.h.url, bearer), m.tierId, 2, { paymentMethod: 'pm_sandbox_visa' }),
    200,
  ).order;
  must(
    await m.api.post(
      `/v1/ticketing/orders/${order.id}/refunds`,
      { ticketIds: [order.tickets[0].id], reason: 'Changed plans', returnToPool: true },
      key(),
    ),
    200,
  );
  const stranger = await signIn(w, newEmail());

  for (const surface of SURFACES) {
    const mine = await surface.connect(w.h, bearer);
    const theirs = await surface.connect(w.h, stranger);
    const merchant = await surface.connect(w.h, m.apiKey);
    try {
      const listed = await mine.call('list_my_tickets', {});
      assert.ok(listed.ok, `${surface.name}: ${JSON.stringify(listed)}`);
      assert.equal(listed.output.orders.length, 1);
      const o = listed.output.orders[0];
      assert.deepEqual(
        [o.orderId, o.eventTitle, o.tierName, o.state],
        [order.id, 'Concert', 'General admission', 'partially_refunded'],
      );
      const [voided, valid] = o.tickets;
      assert.deepEqual([voided.id, voided.status, voided.qrImage], [order.tickets[0].id, 'void', null]);
      assert.deepEqual(
        [valid.id, valid.status, valid.qrContent],
        [order.tickets[1].id, 'valid', order.tickets[1].signedCode],
      );
      assert.equal(
        svgOf(valid.qrImage),
        await QRCode.toString(order.tickets[1].signedCode, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }),
      );
      const none = await theirs.call('list_my_tickets', {});
      assert.ok(none.ok);
      assert.deepEqual(none.output.orders, [], `${surface.name}: another buyer sees none of it`);
      const refused = await merchant.call('list_my_tickets', {});
      assert.equal(!refused.ok && refused.code, 'forbidden', `${surface.name}: buyers only`);
    } finally {
      await mine.done();
      await theirs.done();
      await merchant.done();
    }
  }
});
