/** ACP checkout over REST: a session from create to complete with a delegated token, every body valid ACP JSON. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { harnessPerFile } from '../support/harness-per-file.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import {
  acpClient,
  acpValid,
  completeBody,
  createBody,
  delegateBody,
  delegateValid,
  must,
  shopWithTier,
} from '../support/acp.ts';

const h = harnessPerFile();

test('the discovery document is public, cacheable and valid ACP', async () => {
  const res = await restClient(h.url).get('/.well-known/acp.json');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('cache-control') ?? '', /public, max-age=3600/);
  acpValid('DiscoveryResponse', res.body);
  assert.deepEqual(res.body.protocol, {
    name: 'acp',
    version: '2026-04-17',
    supported_versions: ['2026-04-17'],
    documentation_url: `${h.url}/docs`,
  });
  assert.equal(res.body.api_base_url, h.url);
  assert.deepEqual(res.body.transports, ['rest', 'mcp']);
  assert.deepEqual(res.body.capabilities.services, ['checkout', 'delegate_payment']);
});

test('create → retrieve → update → delegate_payment → complete, over the spine, every body valid ACP', async () => {
  const s = await shopWithTier(h, { capacity: 10, priceMinor: 2500, feePerTicketMinor: 150 });
  const acp = acpClient(h, s.apiKey);

  const createReq = createBody(s.tierId);
  acpValid('CheckoutSessionCreateRequest', createReq);
  const created = must(await acp.post('/checkout_sessions', createReq), 201);
  acpValid('CheckoutSession', created, 'create response');
  assert.match(created.id, /^cs_/);
  assert.equal(created.status, 'ready_for_payment');
  assert.equal(created.currency, 'usd');
  assert.deepEqual(created.protocol, { version: '2026-04-17' });
  assert.equal(created.line_items[0].item.id, s.tierId);
  assert.equal(created.line_items[0].quantity, 1);
  assert.equal(created.totals.find((t: any) => t.type === 'total').amount, 2650);
  assert.equal(created.totals.find((t: any) => t.type === 'fee').amount, 150);
  assert.ok(created.expires_at, 'a held session says when the hold ends');
  const handler = created.capabilities.payment.handlers[0];
  assert.equal(handler.id, 'card_tokenized');
  assert.equal(handler.requires_delegate_payment, true);
  assert.equal(handler.config.merchant_id, s.shopId);
  assert.deepEqual([(await assertInvariant(h.db, s.poolId)).held], [1], 'the session holds one place on the spine');

  const got = must(await acp.get(`/checkout_sessions/${created.id}`), 200);
  acpValid('CheckoutSession', got, 'retrieve response');
  assert.deepEqual(got, created);

  const updateReq = {
    fulfillment_details: {
      name: 'Ada Lovelace',
      email: 'ada@example.test',
      address: {
        name: 'Ada Lovelace',
        line_one: '1 Analytical St',
        city: 'London',
        state: 'LDN',
        country: 'GB',
        postal_code: 'N1 1AA',
      },
    },
    selected_fulfillment_options: [
      { type: 'digital', option_id: 'digital_tickets', item_ids: [created.line_items[0].id] },
    ],
  };
  acpValid('CheckoutSessionUpdateRequest', updateReq);
  const updated = must(await acp.post(`/checkout_sessions/${created.id}`, updateReq), 200);
  acpValid('CheckoutSession', updated, 'update response');
  assert.equal(updated.status, 'ready_for_payment');
  assert.deepEqual(updated.fulfillment_details, updateReq.fulfillment_details);
  await assertInvariant(h.db, s.poolId);

  const delegateReq = delegateBody({ max_amount: 2650, checkout_session_id: created.id, merchant_id: s.shopId });
  delegateValid('DelegatePaymentRequest', delegateReq);
  const token = must(
    await acp.post('/agentic_commerce/delegate_payment', delegateReq, { 'idempotency-key': 'dp-1' }),
    201,
  );
  delegateValid('DelegatePaymentResponse', token, 'delegate_payment response');
  assert.match(token.id, /^vt_/);
  assert.equal(token.metadata.merchant_id, s.shopId);
  assert.equal(token.metadata.idempotency_key, 'dp-1');
  assert.equal(token.metadata.source, 'test');
  const storedSql = 'select * from acp_vault_tokens where checkout_session_id = ?';
  const stored = await h.db.execute<Record<string, unknown>>(storedSql, [created.id]);
  assert.equal(stored.length, 1);
  assert.doesNotMatch(JSON.stringify(stored), /4242424242424242|"123"/, 'the card number and CVC are never stored');

  const completeReq = completeBody(token.id);
  acpValid('CheckoutSessionCompleteRequest', completeReq);
  const done = await acp.post(`/checkout_sessions/${created.id}/complete`, completeReq, {
    'idempotency-key': 'complete-1',
    'request-id': 'req-9',
  });
  must(done, 200);
  acpValid('CheckoutSessionWithOrder', done.body, 'complete response');
  assert.equal(done.headers.get('idempotency-key'), 'complete-1');
  assert.equal(done.headers.get('request-id'), 'req-9');
  assert.equal(done.body.status, 'completed');
  assert.match(done.body.order.id, /^ord_/);
  assert.equal(done.body.order.checkout_session_id, created.id);
  assert.equal(done.body.order.permalink_url, `${h.url}/v1/ticketing/orders/${done.body.order.id}`);
  const order = must(await s.api.get(`/v1/ticketing/orders/${done.body.order.id}`), 200);
  assert.equal(order.tickets.length, 1);
  assert.equal(order.totalMinor, 2650);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [9, 0, 1]);

  const replay = await acp.post(`/checkout_sessions/${created.id}/complete`, completeReq, {
    'idempotency-key': 'complete-1',
  });
  assert.equal(replay.status, 200);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(replay.body, done.body, 'a retried complete replays the order, never a second charge');
  const payments = await h.db.execute<{ n: number }>(
    'select count(*)::int as n from payments where reservation_id in (select reservation_id from acp_checkout_sessions where id = ?)',
    [created.id],
  );
  assert.equal(payments[0]?.n, 1);
});

test('ticket quantity on a line item is accepted (documented deviation) and held as one spine reservation', async () => {
  const s = await shopWithTier(h, { capacity: 5, priceMinor: 1000, feePerTicketMinor: 100 });
  const acp = acpClient(h, s.apiKey);
  const req = createBody(s.tierId, {}, 3);
  assert.throws(
    () => acpValid('CheckoutSessionCreateRequest', req),
    /quantity/,
    'ACP request items have no quantity (ACP issue #264)',
  );
  acpValid('CheckoutSessionCreateRequest', createBody(s.tierId), 'the same request without quantity');
  const created = must(await acp.post('/checkout_sessions', req), 201);
  acpValid('CheckoutSession', created);
  assert.equal(created.line_items[0].quantity, 3);
  assert.equal(created.line_items[0].unit_amount, 1000);
  assert.equal(created.totals.find((t: any) => t.type === 'total').amount, 3300);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held], [2, 3]);

  const fewer = must(
    await acp.post(`/checkout_sessions/${created.id}`, { line_items: [{ id: s.tierId, quantity: 2 }] }),
    200,
  );
  assert.equal(fewer.line_items[0].quantity, 2);
  assert.equal(fewer.status, 'ready_for_payment');
  const after = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([after.available, after.held], [3, 2], 'the old hold was given back before the new one was taken');

  const two = must(
    await acp.post('/checkout_sessions', { ...createBody(s.tierId), line_items: [{ id: s.tierId }, { id: s.tierId }] }),
    400,
  );
  acpValid('Error', two);
  assert.deepEqual([two.type, two.code, two.param], ['invalid_request', 'invalid_input', '$.line_items']);
});

test('cancel gives the tickets back; 405 once canceled or completed', async () => {
  const s = await shopWithTier(h, { capacity: 4 });
  const acp = acpClient(h, s.apiKey);
  const a = must(await acp.post('/checkout_sessions', createBody(s.tierId, {}, 2)), 201);
  const cancelReq = {
    intent_trace: { reason_code: 'price_sensitivity', trace_summary: 'Too pricey.', metadata: { target: 20 } },
  };
  acpValid('CancelSessionRequest', cancelReq);
  const canceled = must(await acp.post(`/checkout_sessions/${a.id}/cancel`, cancelReq), 200);
  acpValid('CheckoutSession', canceled, 'cancel response');
  assert.equal(canceled.status, 'canceled');
  assert.equal(canceled.messages[0].type, 'info');
  assert.deepEqual([(await assertInvariant(h.db, s.poolId)).available], [4]);
  const again = must(await acp.post(`/checkout_sessions/${a.id}/cancel`), 405);
  acpValid('Error', again);
  assert.deepEqual([again.type, again.code], ['invalid_request', 'checkout_session_not_cancelable']);
  const late = must(await acp.post(`/checkout_sessions/${a.id}/complete`, completeBody('vt_x')), 409);
  assert.equal(late.code, 'checkout_session_closed');
  const update = must(await acp.post(`/checkout_sessions/${a.id}`, { buyer: { email: 'x@example.test' } }), 409);
  assert.equal(update.code, 'checkout_session_closed');

  const b = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  const token = must(
    await acp.post(
      '/agentic_commerce/delegate_payment',
      delegateBody({ checkout_session_id: b.id, merchant_id: s.shopId }),
    ),
    201,
  );
  must(await acp.post(`/checkout_sessions/${b.id}/complete`, completeBody(token.id)), 200);
  const afterComplete = must(await acp.post(`/checkout_sessions/${b.id}/cancel`, {}), 405);
  acpValid('Error', afterComplete);
  assert.equal(afterComplete.code, 'checkout_session_not_cancelable');
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.sold], [3, 1]);
});

test('another caller’s session answers 404; an unknown item is a flat error', async () => {
  const s = await shopWithTier(h);
  const other = await shopWithTier(h);
  const mine = must(await acpClient(h, s.apiKey).post('/checkout_sessions', createBody(s.tierId)), 201);
  const theirs = acpClient(h, other.apiKey);
  const nope = must(await theirs.get(`/checkout_sessions/${mine.id}`), 404);
  acpValid('Error', nope);
  assert.equal(nope.code, 'not_found');
  const foreignTier = must(await theirs.post('/checkout_sessions', createBody(s.tierId)), 404);
  assert.deepEqual([foreignTier.code, foreignTier.param], ['not_found', '$.line_items[0].id']);
  const anon = must(await acpClient(h).post('/checkout_sessions', createBody(s.tierId)), 401);
  acpValid('Error', anon);
  const unknown = must(
    await acpClient(h, s.apiKey).post('/checkout_sessions', { ...createBody(s.tierId), coupons: ['X'] }),
    400,
  );
  assert.deepEqual([unknown.code, unknown.param], ['unknown_field', '$.coupons']);
  const wrongCurrency = must(
    await acpClient(h, s.apiKey).post('/checkout_sessions', { ...createBody(s.tierId), currency: 'eur' }),
    400,
  );
  assert.deepEqual([wrongCurrency.code, wrongCurrency.param], ['invalid_input', '$.currency']);
  const put = must(
    await acpClient(h, s.apiKey).raw.call('PUT', `/checkout_sessions/${mine.id}`, {}, { 'api-version': '2026-04-17' }),
    405,
  );
  acpValid('Error', put);
});
