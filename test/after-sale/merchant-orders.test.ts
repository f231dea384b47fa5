/**
 * The merchant's order desk (issue #34, the console's Orders view): search by e-mail, order id and ticket id with
 * filters, sorts and cursor pages; an order's detail (buyer, e-mails sent, check-ins); the refund amount before the
 * refund; resending the tickets e-mail, idempotent and bounded per order. Over REST and MCP; another organization's
 * order is 404; buyers and agents get no buyer fields from the existing reads.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { restClient } from '../support/rest.ts';
import { callTool, mcpInMemory } from '../support/mcp.ts';
import { buy, key, merchantShop, must, newEmail, signIn, startWorld, type World } from '../support/buyers.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

const confirmations = (email: string) =>
  w.box.messages.filter((m) => m.to.includes(email) && m.subject.startsWith('Your tickets'));

test('a merchant searches, reads, previews a refund of and resends the e-mail of its orders; others get 404', async () => {
  const m = await merchantShop(w.h, { discoverable: true, priceMinor: 5000 });
  const email = newEmail();
  const buyer = restClient(w.h.url, await signIn(w, email));
  w.h.clock.advance(1000);
  const mine = must(await buy(buyer, m.tierId, 2, { paymentMethod: 'pm_sandbox_visa' }), 200).order;
  w.h.clock.advance(1000);
  const own = must(await buy(m.api, m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200).order;
  await w.h.app.orderMail.idle();

  // The existing reads are unchanged: no buyer fields for the buyer, nor for the merchant's get_order.
  assert.equal('buyer' in must(await buyer.get(`/v1/ticketing/orders/${mine.id}`), 200), false);
  assert.equal('buyer' in must(await m.api.get(`/v1/ticketing/orders/${mine.id}`), 200), false);
  assert.equal((await buyer.get('/v1/ticketing/order-search')).status, 403);

  const search = async (qs: string) => must(await m.api.get(`/v1/ticketing/order-search?${qs}`), 200);
  const ids = (page: any) => page.orders.map((o: any) => o.id);
  const byMail = await search(`q=${encodeURIComponent(email.slice(0, 10).toUpperCase())}`);
  assert.deepEqual(ids(byMail), [mine.id]);
  assert.deepEqual(byMail.orders[0].buyer, { email, name: null });
  assert.equal(byMail.orders[0].tierName, 'General admission');
  assert.equal(byMail.orders[0].eventTitle, 'Concert');
  assert.deepEqual(ids(await search(`q=${mine.id}`)), [mine.id]);
  assert.deepEqual(ids(await search(`q=${mine.tickets[1].id}`)), [mine.id]);
  assert.deepEqual(ids(await search(`merchantId=${m.shopId}`)), [own.id, mine.id]);
  assert.equal((await search(`q=${own.id}`)).orders[0].buyer, null);
  assert.deepEqual(ids(await search('sort=total&direction=asc')), [own.id, mine.id]);
  const first = await search('sort=total&limit=1');
  assert.deepEqual(ids(first), [mine.id]);
  const second = await search(`sort=total&limit=1&cursor=${first.nextCursor}`);
  assert.deepEqual(ids(second), [own.id]);
  assert.equal(second.nextCursor, undefined);
  assert.equal((await m.api.get(`/v1/ticketing/order-search?cursor=${first.nextCursor}`)).body.code, 'invalid_input');
  assert.equal((await m.api.get('/v1/ticketing/order-search?email=x')).body.code, 'unknown_field');

  // The door admits one ticket; the detail shows it, the buyer, and the confirmation e-mail sent.
  must(
    await m.api.post(`/v1/ticketing/events/${m.eventId}/check-ins`, { code: mine.tickets[0].signedCode, device: 'd1' }),
    200,
  );
  const detail = must(await m.api.get(`/v1/ticketing/orders/${mine.id}/detail`), 200);
  assert.deepEqual(detail.buyer, { email, name: null });
  assert.equal(detail.order.id, mine.id);
  assert.equal(detail.event.title, 'Concert');
  assert.deepEqual(
    detail.emails.map((e: any) => [e.kind, e.to, e.state]),
    [['confirmation', email, 'sent']],
  );
  assert.deepEqual(
    detail.checkIns.map((c: any) => [c.ticketId, c.device]),
    [[mine.tickets[0].id, 'd1']],
  );

  // The preview names the amount the refund then pays back.
  const preview = must(
    await m.api.post(`/v1/ticketing/orders/${mine.id}/refund-preview`, { ticketIds: [mine.tickets[1].id] }),
    200,
  );
  assert.deepEqual(preview, {
    orderId: mine.id,
    ticketIds: [mine.tickets[1].id],
    amountMinor: 5000,
    currency: 'EUR',
    remainingMinor: 5000,
  });
  const refunded = must(
    await m.api.post(
      `/v1/ticketing/orders/${mine.id}/refunds`,
      { ticketIds: [mine.tickets[1].id], reason: 'asked', returnToPool: true },
      key(),
    ),
    200,
  );
  assert.equal(refunded.refund.amountMinor, preview.amountMinor);
  const again = await m.api.post(`/v1/ticketing/orders/${mine.id}/refund-preview`, {
    ticketIds: [mine.tickets[1].id],
  });
  assert.equal(again.body.code, 'ticket_not_refundable');

  // Resend: one e-mail per key, at most three an hour per order.
  w.h.clock.advance(1000);
  const k = key();
  const sent = must(await m.api.post(`/v1/ticketing/orders/${mine.id}/resend-email`, {}, k), 202);
  assert.equal(sent.to, email);
  const replay = await m.api.post(`/v1/ticketing/orders/${mine.id}/resend-email`, {}, k);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.equal(replay.body.emailId, sent.emailId);
  await w.h.app.orderMail.idle();
  assert.equal(confirmations(email).length, 2);
  must(await m.api.post(`/v1/ticketing/orders/${mine.id}/resend-email`, {}, key()), 202);
  must(await m.api.post(`/v1/ticketing/orders/${mine.id}/resend-email`, {}, key()), 202);
  const limited = await m.api.post(`/v1/ticketing/orders/${mine.id}/resend-email`, {}, key());
  assert.equal(limited.status, 429);
  assert.equal(limited.body.code, 'rate_limited');
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
  w.h.clock.advance(3_600_000);
  must(await m.api.post(`/v1/ticketing/orders/${mine.id}/resend-email`, {}, key()), 202);
  assert.equal((await m.api.post(`/v1/ticketing/orders/${own.id}/resend-email`, {}, key())).body.code, 'conflict');
  await w.h.app.orderMail.idle();
  const kinds = must(await m.api.get(`/v1/ticketing/orders/${mine.id}/detail`), 200).emails.map((e: any) => e.kind);
  assert.deepEqual(kinds, ['confirmation', 'refund', 'resend', 'resend', 'resend', 'resend']);

  // Another organization: 404 everywhere, over REST and MCP.
  const other = await merchantShop(w.h);
  assert.equal((await other.api.get(`/v1/ticketing/orders/${mine.id}/detail`)).status, 404);
  assert.equal((await other.api.post(`/v1/ticketing/orders/${mine.id}/refund-preview`, {})).status, 404);
  assert.equal((await other.api.post(`/v1/ticketing/orders/${mine.id}/resend-email`, {}, key())).status, 404);
  assert.equal((await other.api.get(`/v1/ticketing/order-search?merchantId=${m.shopId}`)).status, 404);
  assert.deepEqual(ids(must(await other.api.get(`/v1/ticketing/order-search?q=${mine.id}`), 200)), []);

  const mcp = await mcpInMemory(w.h, m.apiKey);
  const found = await callTool(mcp, 'search_orders', { q: email });
  assert.ok(found.ok);
  assert.deepEqual((found.output as any).orders[0].buyer, { email, name: null });
  const viaMcp = await callTool(mcp, 'get_order_detail', { id: mine.id });
  assert.ok(viaMcp.ok);
  assert.equal((viaMcp.output as any).checkIns.length, 1);
  const quoted = await callTool(mcp, 'preview_refund', { id: mine.id });
  assert.ok(quoted.ok);
  assert.equal((quoted.output as any).amountMinor, 5000);
  const resent = await callTool(mcp, 'resend_order_email', { id: mine.id }, { idempotencyKey: randomUUID() });
  assert.ok(resent.ok);
  await mcp.close();
  const otherMcp = await mcpInMemory(w.h, other.apiKey);
  const hidden = await callTool(otherMcp, 'get_order_detail', { id: mine.id });
  assert.equal(hidden.ok ? 'ok' : hidden.code, 'not_found');
  await otherMcp.close();
});
