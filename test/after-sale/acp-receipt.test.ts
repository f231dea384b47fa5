/** An ACP purchase made with an API key sends the receipt to the buyer's e-mail its session names (issue #36). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { acpClient, completeBody, createBody, delegateBody, must, shopWithTier } from '../support/acp.ts';
import { startWorld, type World } from '../support/buyers.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

test('issue #36: an ACP order completed by an API key with buyer.email gets its confirmation and refund e-mails', async () => {
  const s = await shopWithTier(w.h, { priceMinor: 2500 });
  const acp = acpClient(w.h, s.apiKey);
  const session = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  const allowance = { max_amount: session.totals.find((t: any) => t.type === 'total').amount, currency: 'usd' };
  const vault = { ...allowance, checkout_session_id: session.id, merchant_id: s.shopId };
  const token = must(await acp.post('/agentic_commerce/delegate_payment', delegateBody(vault)), 201);
  const email = `acp-${crypto.randomUUID().slice(0, 8)}@example.test`;
  const body = { ...completeBody(token.id), buyer: { first_name: 'Ada', email } };
  const done = must(await acp.post(`/checkout_sessions/${session.id}/complete`, body), 200);
  assert.equal(done.status, 'completed');
  await w.h.app.orderMail.idle();
  assert.equal(w.box.count(email), 1);
  const mail = w.box.last(email);
  assert.match(mail.subject, /Arena Night/);
  assert.ok(mail.text.includes(done.order.id));
  // A refund of that order is mailed there too.
  const order = must(await s.api.get(`/v1/ticketing/orders/${done.order.id}`), 200);
  const refund = { ticketIds: [order.tickets[0].id], reason: 'Changed plans', returnToPool: true };
  must(
    await s.api.post(`/v1/ticketing/orders/${order.id}/refunds`, refund, { 'idempotency-key': crypto.randomUUID() }),
    200,
  );
  await w.h.app.orderMail.idle();
  assert.equal(w.box.count(email), 2);
});
