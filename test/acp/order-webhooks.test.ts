/**
 * ACP order webhooks to the agent platform: after an ACP checkout completes, and after refunds, the shop's ACP
 * endpoint receives `order_create` / `order_update` with the full order, signed with ACP's Merchant-Signature; the
 * signature is checked here by a verifier written from openapi.agentic_checkout_webhook.yaml, not by our signer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { startReceiver, type Received, type Receiver } from '../support/webhook-receiver.ts';
import {
  acpClient,
  completeBody,
  createBody,
  delegateBody,
  must,
  shopWithTier,
  webhookValid,
  type Shop,
} from '../support/acp.ts';

const SECRET = 'acp-platform-shared-secret-0123456789';
/** The sandbox test card that charges but refuses every refund (pm_sandbox_refund_fails). */
const REFUND_FAILS_CARD = '4000000000005126';
let h: Harness;
let rx: Receiver;
before(async () => {
  h = await startHarness({
    SWEEP_INTERVAL_MS: '0',
    SANDBOX_DISPATCH_MS: '0',
    WEBHOOK_DISPATCH_MS: '0',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    RATE_LIMIT_PER_MINUTE: '100000',
  });
  rx = await startReceiver();
});
after(async () => {
  await rx?.close();
  await h?.close();
});

/**
 * ACP's rule: `Merchant-Signature: t=<unix_seconds>,v1=<64_hex>`, the hex HMAC-SHA256 with the shared secret over
 * `timestamp + "." + raw_body`; refuse a malformed header, a bad signature, or a timestamp outside 300 s.
 */
function acpSignatureValid(header: string | undefined, rawBody: string, secret: string, nowSeconds: number): boolean {
  const m = /^t=(\d+),v1=([a-fA-F0-9]{64})$/.exec(header ?? '');
  if (!m) return false;
  const [, t, v1] = m;
  if (Math.abs(nowSeconds - Number(t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(v1!, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const nowSeconds = () => Math.floor(h.clock.now().getTime() / 1000);
const dispatch = () => h.app.services.webhooks.dispatchOnce();

/** The requests that reached `path` so far. */
const at = (path: string): Received[] => rx.received.filter((r) => r.path === path);

/** Waits for the n-th request at `path` (dispatching first) and checks its signature and shape. */
async function nextEvent(path: string, n: number): Promise<{ raw: Received; body: any }> {
  await dispatch();
  await rx.waitFor(rx.received.length, 60_000);
  const got = at(path);
  assert.ok(got.length >= n, `expected ${n} ACP webhook(s) at ${path}, got ${got.length}`);
  const raw = got[n - 1]!;
  assert.equal(raw.headers['content-type'], 'application/json');
  assert.ok(
    acpSignatureValid(raw.headers['merchant-signature'] as string, raw.body, SECRET, nowSeconds()),
    'the Merchant-Signature verifies',
  );
  assert.ok(
    !acpSignatureValid(
      raw.headers['merchant-signature'] as string,
      raw.body.replace('"order"', '"Order"'),
      SECRET,
      nowSeconds(),
    ),
    'a changed body does not',
  );
  assert.ok(
    !acpSignatureValid(
      raw.headers['merchant-signature'] as string,
      raw.body,
      'another-secret-0123456789',
      nowSeconds(),
    ),
    'another secret does not',
  );
  const body = JSON.parse(raw.body);
  webhookValid('WebhookEvent', body);
  return { raw, body };
}

/**
 * Buys `quantity` tickets through an ACP session paid with a delegated sandbox card; returns the session and order ids.
 */
async function acpPurchase(s: Shop, quantity: number): Promise<{ sessionId: string; orderId: string }> {
  const acp = acpClient(h, s.apiKey);
  const created = must(await acp.post('/checkout_sessions', createBody(s.tierId, {}, quantity)), 201);
  const total = created.totals.find((t: any) => t.type === 'total').amount;
  const token = must(
    await acp.post(
      '/agentic_commerce/delegate_payment',
      delegateBody({ max_amount: total, checkout_session_id: created.id, merchant_id: s.shopId }),
    ),
    201,
  );
  const done = must(await acp.post(`/checkout_sessions/${created.id}/complete`, completeBody(token.id)), 200);
  assert.equal(done.status, 'completed');
  return { sessionId: created.id, orderId: done.order.id };
}

test('the ACP endpoint is a merchant setting: the URL passes the webhook address checks, the secret is never shown', async () => {
  const s = await shopWithTier(h);
  const path = `/v1/integration/shops/${s.shopId}/acp-webhook`;
  assert.deepEqual(must(await s.api.get(path), 200), { merchantId: s.shopId, webhook: null });
  const privateUrl = await s.api.put(path, { url: 'https://10.0.0.7/acp', secret: SECRET });
  assert.equal(privateUrl.status, 400);
  assert.equal(privateUrl.body.code, 'invalid_webhook_url');
  assert.equal(privateUrl.body.details.reason, 'private_address');
  const shortSecret = await s.api.put(path, { url: `${rx.url}/acp`, secret: 'short' });
  assert.equal(shortSecret.status, 400);
  assert.equal(shortSecret.body.code, 'invalid_input');
  const extra = await s.api.put(path, { url: `${rx.url}/acp`, secret: SECRET, events: ['order_create'] });
  assert.equal(extra.body.code, 'unknown_field');

  const set = must(await s.api.put(path, { url: `${rx.url}/acp`, secret: SECRET }), 200);
  assert.match(set.id, /^whk_/);
  assert.deepEqual(set.events, ['acp.order_create', 'acp.order_update']);
  const read = must(await s.api.get(path), 200);
  assert.deepEqual(read.webhook, { id: set.id, url: `${rx.url}/acp`, events: set.events, createdAt: set.createdAt });
  assert.doesNotMatch(JSON.stringify(read), /platform-shared-secret/);
  const [row] = await h.db.execute<{ secret_sealed: string }>(
    'select secret_sealed from webhook_subscriptions where id = ?',
    [set.id],
  );
  assert.doesNotMatch(row!.secret_sealed, /platform-shared-secret/, 'sealed at rest');
  assert.deepEqual(
    must(await s.api.get(`/v1/integration/webhooks?merchantId=${s.shopId}`), 200).webhooks,
    [],
    'not one of the merchant’s own webhooks',
  );

  const other = await h.merchant();
  const foreign = await restClient(h.url, other.apiKey).put(path, { url: `${rx.url}/acp`, secret: SECRET });
  assert.equal(foreign.status, 404, 'another organization’s shop is not found');
  const replaced = must(await s.api.put(path, { url: `${rx.url}/acp-2`, secret: SECRET }), 200);
  assert.equal(replaced.id, set.id, 'setting again replaces the one endpoint');
  assert.deepEqual(must(await s.api.delete(path), 200), {
    merchantId: s.shopId,
    deleted: true,
    cancelledDeliveries: 0,
  });
  assert.deepEqual(must(await s.api.get(path), 200).webhook, null);
});

test('an ACP checkout sends order_create, a partial refund order_update with the adjustment, a full refund canceled', async () => {
  const s = await shopWithTier(h, { capacity: 10, priceMinor: 2500, feePerTicketMinor: 150 });
  const path = `/acp-${randomUUID()}`;
  const endpoint = must(
    await s.api.put(`/v1/integration/shops/${s.shopId}/acp-webhook`, { url: `${rx.url}${path}`, secret: SECRET }),
    200,
  );

  const { sessionId, orderId } = await acpPurchase(s, 2);
  const created = await nextEvent(path, 1);
  assert.equal(
    created.raw.headers['request-id'] !== undefined,
    true,
    'Request-Id names the event (stable across retries)',
  );
  assert.equal(created.body.type, 'order_create');
  const o = created.body.data;
  assert.equal(o.type, 'order');
  assert.equal(o.id, orderId);
  assert.equal(o.checkout_session_id, sessionId);
  assert.equal(o.permalink_url, `${h.url}/v1/ticketing/orders/${orderId}`);
  assert.equal(o.status, 'confirmed');
  assert.deepEqual(o.line_items[0].quantity, { ordered: 2, current: 2, fulfilled: 2 });
  assert.equal(o.line_items[0].unit_price, 2500);
  assert.deepEqual(o.adjustments, []);
  assert.deepEqual(
    o.totals.map((t: any) => [t.type, t.amount]),
    [
      ['subtotal', 5000],
      ['fee', 300],
      ['total', 5300],
    ],
  );
  assert.equal(o.fulfillments[0].type, 'digital');

  const order = must(await s.api.get(`/v1/ticketing/orders/${orderId}`), 200);
  const part = await s.api.post(
    `/v1/ticketing/orders/${orderId}/refunds`,
    { ticketIds: [order.tickets[0].id], reason: 'Cannot attend', returnToPool: true },
    { 'idempotency-key': randomUUID() },
  );
  assert.equal(part.status, 200, JSON.stringify(part.body));
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [9, 0, 1]);

  // The receiver fails the first attempt: the delivery is retried (same Request-Id) after 30 s.
  rx.respondWith(path, 503);
  await dispatch();
  assert.equal(at(path).length, 2);
  const log = must(await s.api.get(`/v1/integration/webhooks/${endpoint.id}/deliveries`), 200);
  assert.deepEqual(
    log.deliveries.map((d: any) => [d.type, d.status, d.lastHttpStatus]).sort(),
    [
      ['acp.order_create', 'delivered', 200],
      ['acp.order_update', 'pending', 503],
    ],
    'the endpoint’s delivery log is list_webhook_deliveries',
  );
  h.clock.advance(30_000);
  const updated = await nextEvent(path, 3);
  assert.equal(
    updated.raw.headers['request-id'],
    at(path)[1]!.headers['request-id'],
    'the retry carries the same Request-Id',
  );
  assert.equal(updated.body.type, 'order_update');
  const u = updated.body.data;
  assert.equal(u.status, 'confirmed');
  assert.deepEqual(u.line_items[0].quantity, { ordered: 2, current: 1, fulfilled: 1 });
  assert.equal(u.adjustments.length, 1);
  assert.deepEqual(
    {
      type: u.adjustments[0].type,
      status: u.adjustments[0].status,
      amount: u.adjustments[0].amount,
      currency: u.adjustments[0].currency,
      description: u.adjustments[0].description,
      line_items: u.adjustments[0].line_items,
    },
    {
      type: 'refund',
      status: 'completed',
      amount: 2650,
      currency: 'usd',
      description: 'Cannot attend',
      line_items: [{ id: o.line_items[0].id, quantity: 1 }],
    },
  );
  assert.deepEqual(u.totals.find((t: any) => t.type === 'amount_refunded').amount, 2650);

  const rest = await s.api.post(
    `/v1/ticketing/orders/${orderId}/refunds`,
    { reason: 'Event moved', returnToPool: false },
    { 'idempotency-key': randomUUID() },
  );
  assert.equal(rest.status, 200, JSON.stringify(rest.body));
  const canceled = await nextEvent(path, 4);
  assert.equal(canceled.body.type, 'order_update');
  assert.equal(canceled.body.data.status, 'canceled');
  assert.equal(canceled.body.data.line_items[0].status, 'removed');
  assert.deepEqual(
    canceled.body.data.adjustments.map((a: any) => [a.status, a.amount]),
    [
      ['completed', 2650],
      ['completed', 2650],
    ],
  );
  assert.equal(canceled.body.data.totals.find((t: any) => t.type === 'amount_refunded').amount, 5300);
  await assertInvariant(h.db, s.poolId);
});

test('a refund the provider refuses sends order_update with a failed adjustment; the order stays confirmed', async () => {
  const s = await shopWithTier(h, { capacity: 5, priceMinor: 1000 });
  const path = `/acp-${randomUUID()}`;
  must(
    await s.api.put(`/v1/integration/shops/${s.shopId}/acp-webhook`, { url: `${rx.url}${path}`, secret: SECRET }),
    200,
  );
  // A delegated token for the sandbox card that charges but refuses every refund.
  const acp = acpClient(h, s.apiKey);
  const created = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  const token = must(
    await acp.post(
      '/agentic_commerce/delegate_payment',
      delegateBody({ max_amount: 1000, checkout_session_id: created.id, merchant_id: s.shopId }, REFUND_FAILS_CARD),
    ),
    201,
  );
  const done = must(await acp.post(`/checkout_sessions/${created.id}/complete`, completeBody(token.id)), 200);
  await nextEvent(path, 1);
  const refused = await s.api.post(
    `/v1/ticketing/orders/${done.order.id}/refunds`,
    { reason: 'Try', returnToPool: true },
    { 'idempotency-key': randomUUID() },
  );
  assert.equal(refused.status, 402, JSON.stringify(refused.body));
  const update = await nextEvent(path, 2);
  assert.equal(update.body.data.status, 'confirmed');
  assert.deepEqual(
    update.body.data.adjustments.map((a: any) => [a.type, a.status, a.amount]),
    [['refund', 'failed', 1000]],
  );
  assert.equal(
    update.body.data.totals.find((t: any) => t.type === 'amount_refunded'),
    undefined,
  );
});

test('purchases that are not ACP checkouts send no ACP webhook', async () => {
  const s = await shopWithTier(h, { capacity: 5, priceMinor: 1000 });
  const path = `/acp-${randomUUID()}`;
  must(
    await s.api.put(`/v1/integration/shops/${s.shopId}/acp-webhook`, { url: `${rx.url}${path}`, secret: SECRET }),
    200,
  );
  const quote = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  const hold = must(
    await s.api.post('/v1/ticketing/reservations', { quoteId: quote.quoteId }, { 'idempotency-key': randomUUID() }),
    201,
  );
  must(
    await s.api.post(
      `/v1/ticketing/reservations/${hold.reservation.id}/confirm`,
      { paymentMethod: 'pm_sandbox_visa' },
      { 'idempotency-key': randomUUID() },
    ),
    200,
  );
  await dispatch();
  assert.equal(at(path).length, 0);
});

test('cancelling the event refunds the ACP order by the job and sends order_update with status canceled', async () => {
  const s = await shopWithTier(h, { capacity: 5, priceMinor: 1500 });
  const path = `/acp-${randomUUID()}`;
  must(
    await s.api.put(`/v1/integration/shops/${s.shopId}/acp-webhook`, { url: `${rx.url}${path}`, secret: SECRET }),
    200,
  );
  const { orderId } = await acpPurchase(s, 2);
  await nextEvent(path, 1);
  const { eventId } = must(await s.api.get(`/v1/ticketing/orders/${orderId}`), 200);
  must(await s.api.post(`/v1/integration/events/${eventId}/cancel`, { reason: 'Storm warning' }), 200);
  for (let i = 0; i < 50 && (await s.api.get(`/v1/ticketing/events/${eventId}/refunds`)).body.pending > 0; i++)
    await h.app.sweeper.runEventRefunds();
  const update = await nextEvent(path, 2);
  assert.equal(update.body.type, 'order_update');
  assert.equal(update.body.data.status, 'canceled');
  assert.deepEqual(
    update.body.data.adjustments.map((a: any) => [a.type, a.status, a.amount, a.description]),
    [['refund', 'completed', 3000, 'Storm warning']],
  );
  assert.deepEqual(update.body.data.line_items[0].quantity, { ordered: 2, current: 0, fulfilled: 0 });
  await assertInvariant(h.db, s.poolId);
});

test('an asynchronous payment sends order_create when the provider settles it, not before', async () => {
  const s = await shopWithTier(h, { capacity: 3, priceMinor: 2000 });
  const path = `/acp-${randomUUID()}`;
  must(
    await s.api.put(`/v1/integration/shops/${s.shopId}/acp-webhook`, { url: `${rx.url}${path}`, secret: SECRET }),
    200,
  );
  const acp = acpClient(h, s.apiKey);
  const session = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  // The sandbox test card whose charge settles later (pm_sandbox_async_success).
  const token = must(
    await acp.post(
      '/agentic_commerce/delegate_payment',
      delegateBody({ max_amount: 2000, checkout_session_id: session.id, merchant_id: s.shopId }, '4000000000003220'),
    ),
    201,
  );
  const pending = must(await acp.post(`/checkout_sessions/${session.id}/complete`, completeBody(token.id)), 200);
  assert.equal(pending.status, 'complete_in_progress');
  await dispatch();
  assert.equal(at(path).length, 0, 'no order yet, no order webhook');
  h.clock.advance(3000);
  await h.app.services.payments.settleDue();
  const created = await nextEvent(path, 1);
  assert.equal(created.body.type, 'order_create');
  assert.equal(created.body.data.checkout_session_id, session.id);
  assert.equal(created.body.data.status, 'confirmed');
});
