/**
 * ACP complete: the delegated token's allowance, declines and async payments, and holds shared with the spine's pool.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harnessPerFile } from '../support/harness-per-file.ts';
import { assertInvariant } from '../support/invariant.ts';
import {
  acpClient,
  acpValid,
  completeBody,
  createBody,
  delegateBody,
  must,
  shopWithTier,
  type AcpClient,
} from '../support/acp.ts';

const h = harnessPerFile();

async function tokenFor(acp: AcpClient, allowance: Parameters<typeof delegateBody>[0], card?: string): Promise<string> {
  return must(await acp.post('/agentic_commerce/delegate_payment', delegateBody(allowance, card)), 201).id;
}

test('the allowance is enforced at complete: max_amount, currency, session, merchant, expiry, one use', async () => {
  const s = await shopWithTier(h, { priceMinor: 4000, feePerTicketMinor: 500 });
  const other = await shopWithTier(h);
  const acp = acpClient(h, s.apiKey);
  const session = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  const elsewhere = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  const ok = { max_amount: 4500, currency: 'usd', checkout_session_id: session.id, merchant_id: s.shopId };
  const expiresSoon = new Date(h.clock.now().getTime() + 60_000).toISOString();
  const cases: [string, Parameters<typeof delegateBody>[0]][] = [
    ['allowance_amount_exceeded', { ...ok, max_amount: 4499 }],
    ['allowance_currency_mismatch', { ...ok, currency: 'eur' }],
    ['allowance_session_mismatch', { ...ok, checkout_session_id: elsewhere.id }],
    ['allowance_merchant_mismatch', { ...ok, merchant_id: other.shopId }],
    ['allowance_expired', { ...ok, expires_at: expiresSoon }],
  ];
  const tokens = [];
  for (const [code, allowance] of cases) tokens.push({ code, id: await tokenFor(acp, allowance) });
  h.clock.advance(2 * 60_000);
  for (const { code, id } of tokens) {
    const res = await acp.post(`/checkout_sessions/${session.id}/complete`, completeBody(id));
    assert.equal(res.status, 422, `${code}: ${JSON.stringify(res.body)}`);
    acpValid('Error', res.body);
    assert.deepEqual(
      [res.body.type, res.body.code, res.body.param],
      ['invalid_request', code, '$.payment_data.instrument.credential.token'],
    );
  }
  const unknown = must(await acp.post(`/checkout_sessions/${session.id}/complete`, completeBody('vt_nope')), 422);
  assert.equal(unknown.code, 'delegated_token_invalid');
  const handler = must(
    await acp.post(`/checkout_sessions/${session.id}/complete`, {
      payment_data: { ...completeBody('x').payment_data, handler_id: 'other' },
    }),
    422,
  );
  assert.deepEqual([handler.code, handler.param], ['payment_handler_unsupported', '$.payment_data.handler_id']);
  assert.equal((await assertInvariant(h.db, s.poolId)).held, 2, 'refusals charge nothing and keep the holds');

  const good = await tokenFor(acp, ok);
  const done = must(await acp.post(`/checkout_sessions/${session.id}/complete`, completeBody(good)), 200);
  acpValid('CheckoutSessionWithOrder', done);
  assert.equal(done.status, 'completed');
  const reused = must(await acp.post(`/checkout_sessions/${elsewhere.id}/complete`, completeBody(good)), 409);
  acpValid('Error', reused);
  assert.equal(reused.code, 'delegated_token_used');
});

test('a declined card keeps the session ready with a payment_declined message; another card then completes', async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const acp = acpClient(h, s.apiKey);
  const session = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  const allowance = { checkout_session_id: session.id, merchant_id: s.shopId };
  const declined = must(
    await acp.post(
      `/checkout_sessions/${session.id}/complete`,
      completeBody(await tokenFor(acp, allowance, '4000000000000002')),
    ),
    200,
  );
  acpValid('CheckoutSession', declined, 'declined complete');
  assert.equal(declined.status, 'ready_for_payment');
  assert.equal(declined.order, undefined);
  assert.deepEqual([declined.messages[0].type, declined.messages[0].code], ['error', 'payment_declined']);
  assert.deepEqual([(await assertInvariant(h.db, s.poolId)).held], [1], 'the tickets stay held');
  const poor = must(
    await acp.post(
      `/checkout_sessions/${session.id}/complete`,
      completeBody(await tokenFor(acp, allowance, '4000000000009995')),
    ),
    200,
  );
  assert.equal(poor.messages[0].code, 'payment_declined');
  assert.match(poor.messages[0].content, /insufficient_funds/);
  const paid = must(
    await acp.post(`/checkout_sessions/${session.id}/complete`, completeBody(await tokenFor(acp, allowance))),
    200,
  );
  assert.equal(paid.status, 'completed');
  assert.deepEqual(paid.messages, []);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [2, 0, 1]);
});

test('an asynchronous payment is complete_in_progress until the provider settles it', async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const acp = acpClient(h, s.apiKey);
  const session = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  const token = await tokenFor(acp, { checkout_session_id: session.id, merchant_id: s.shopId }, '4000000000003220');
  const pending = must(await acp.post(`/checkout_sessions/${session.id}/complete`, completeBody(token)), 200);
  acpValid('CheckoutSession', pending);
  assert.equal(pending.status, 'complete_in_progress');
  assert.equal(pending.messages[0].type, 'info');
  const cancel = must(await acp.post(`/checkout_sessions/${session.id}/cancel`), 409);
  assert.equal(cancel.code, 'payment_in_flight');
  h.clock.advance(3000);
  await h.app.services.payments.settleDue();
  const done = must(await acp.get(`/checkout_sessions/${session.id}`), 200);
  acpValid('CheckoutSessionWithOrder', done);
  assert.equal(done.status, 'completed');
  assert.match(done.order.id, /^ord_/);
  assert.deepEqual([(await assertInvariant(h.db, s.poolId)).sold], [1]);
});

test('sessions hold places in the spine’s pool: sold out becomes out_of_stock, and the pool invariant holds throughout', async () => {
  const s = await shopWithTier(h, { capacity: 2 });
  const acp = acpClient(h, s.apiKey);
  const a = must(await acp.post('/checkout_sessions', createBody(s.tierId, {}, 2)), 201);
  assert.equal(a.status, 'ready_for_payment');
  assert.deepEqual([(await assertInvariant(h.db, s.poolId)).available], [0]);

  const spineQuote = await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 });
  assert.deepEqual([spineQuote.status, spineQuote.body.code], [409, 'sold_out'], 'the spine sees the ACP hold');

  const b = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  acpValid('CheckoutSession', b, 'sold-out session');
  assert.equal(b.status, 'not_ready_for_payment');
  assert.deepEqual(
    [b.messages[0].type, b.messages[0].code, b.messages[0].param],
    ['error', 'out_of_stock', '$.line_items[0]'],
  );
  assert.equal(b.expires_at, undefined);
  const notReady = must(await acp.post(`/checkout_sessions/${b.id}/complete`, completeBody('vt_x')), 409);
  assert.equal(notReady.code, 'checkout_session_not_ready');

  must(await acp.post(`/checkout_sessions/${a.id}/cancel`), 200);
  assert.deepEqual([(await assertInvariant(h.db, s.poolId)).available], [2]);
  const retried = must(await acp.post(`/checkout_sessions/${b.id}`, { buyer: { email: 'b@example.test' } }), 200);
  assert.equal(retried.status, 'ready_for_payment', 'an update holds the tickets again');
  assert.deepEqual(retried.messages, []);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [1, 1]);
});

test('restrictions become session messages; an expired hold shows as expired and an update holds again', async () => {
  const s = await shopWithTier(h, { capacity: 5, restrictions: { maxQtyPerPurchase: 2, allowedGeos: ['FR'] } });
  const acp = acpClient(h, s.apiKey);
  const address = (country: string) => ({
    fulfillment_details: {
      address: { name: 'A', line_one: '1 Rue', city: 'Paris', state: 'IDF', country, postal_code: '75001' },
    },
  });
  const noCountry = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  assert.deepEqual([noCountry.status, noCountry.messages[0].code], ['not_ready_for_payment', 'missing']);
  const wrong = must(await acp.post('/checkout_sessions', createBody(s.tierId, address('US'))), 201);
  acpValid('CheckoutSession', wrong);
  assert.deepEqual(
    [wrong.messages[0].code, wrong.messages[0].param],
    ['region_restricted', '$.fulfillment_details.address.country'],
  );
  const many = must(await acp.post('/checkout_sessions', createBody(s.tierId, address('FR'), 3)), 201);
  assert.equal(many.messages[0].code, 'quantity_exceeded');
  assert.equal(many.line_items[0].max_quantity_per_order, 2);

  const session = must(await acp.post('/checkout_sessions', createBody(s.tierId, address('FR'), 2)), 201);
  assert.equal(session.status, 'ready_for_payment');
  h.clock.advance(11 * 60_000);
  const expired = must(await acp.get(`/checkout_sessions/${session.id}`), 200);
  acpValid('CheckoutSession', expired, 'expired session');
  assert.deepEqual([expired.status, expired.messages[0].code], ['expired', 'expired']);
  const late = must(await acp.post(`/checkout_sessions/${session.id}/complete`, completeBody('vt_x')), 410);
  assert.equal(late.code, 'reservation_expired');
  await h.app.sweeper.sweepExpiredHolds(h.clock.now(), 100);
  assert.equal(must(await acp.get(`/checkout_sessions/${session.id}`), 200).status, 'expired');
  const again = must(await acp.post(`/checkout_sessions/${session.id}`, address('FR')), 200);
  assert.equal(again.status, 'ready_for_payment');
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [3, 2]);
});
