import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { emitEvent, type WebhookEventType } from '../../src/webhooks/outbox.ts';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { closedPortUrl, type Receiver } from '../support/webhook-receiver.ts';
import { startWebhookHarness } from './harness.ts';
import { verifyStandardWebhook } from '../support/webhook-verify.ts';

let h: Harness;
let rx: Receiver;
before(async () => ({ h, rx } = await startWebhookHarness()));
after(async () => {
  await h?.close();
  await rx?.close();
});

const nowSeconds = () => Math.floor(h.clock.now().getTime() / 1000);
const dispatch = () => h.app.services.webhooks.dispatchOnce();

async function subscribe(path: string, events: WebhookEventType[] = ['order.completed']) {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const res = await api.post('/v1/integration/webhooks', { merchantId: m.shopId, url: `${rx.url}${path}`, events });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { m, api, webhook: res.body as { id: string; secret: string } };
}

function emit(shopId: string, type: WebhookEventType, data: Record<string, unknown>): Promise<string> {
  return h.db.transaction((em) => emitEvent(em, { shopId, type, data, now: h.clock.now() }));
}

const at = (path: string) => rx.received.filter((r) => r.path === path);

test('an event is delivered once, signed per Standard Webhooks, and verifies independently', async () => {
  const { m, api, webhook } = await subscribe('/signed');
  const eventAt = h.clock.now().toISOString();
  const eventId = await emit(m.shopId, 'order.completed', { orderId: 'ord_123', totalMinor: 4200, currency: 'EUR' });
  await dispatch();

  const [msg, ...more] = at('/signed');
  assert.ok(msg);
  assert.equal(more.length, 0);
  assert.equal(msg.headers['webhook-id'], eventId);
  assert.equal(msg.headers['webhook-timestamp'], String(nowSeconds()));
  assert.match(String(msg.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
  assert.match(String(msg.headers['content-type']), /^application\/json/);
  assert.deepEqual(JSON.parse(msg.body), {
    type: 'order.completed',
    timestamp: eventAt,
    data: { orderId: 'ord_123', totalMinor: 4200, currency: 'EUR' },
  });
  assert.equal(verifyStandardWebhook(webhook.secret, msg.headers, msg.body, nowSeconds()), true);

  const log = await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries`);
  assert.equal(log.status, 200);
  const [d] = log.body.deliveries;
  assert.equal(log.body.deliveries.length, 1);
  assert.equal(d.eventId, eventId);
  assert.equal(d.type, 'order.completed');
  assert.equal(d.status, 'delivered');
  assert.equal(d.attempts, 1);
  assert.equal(d.lastHttpStatus, 200);
  assert.equal(d.lastError, null);
  assert.equal(d.nextAttemptAt, null);
  assert.equal(d.deliveredAt, h.clock.now().toISOString());

  h.clock.advance(3600_000);
  await dispatch();
  assert.equal(at('/signed').length, 1, 'nothing is sent twice');
});

test('a delivery shows its request as sent and the response recorded; another organization gets 404', async () => {
  const { m, api, webhook } = await subscribe('/detail');
  const eventId = await emit(m.shopId, 'order.completed', { orderId: 'ord_77', totalMinor: 900, currency: 'EUR' });
  await dispatch();
  const [msg] = at('/detail');
  assert.ok(msg);
  const [d] = (await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries`)).body.deliveries;
  const res = await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries/${d.id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.delivery, d);
  assert.deepEqual(res.body.request, {
    method: 'POST',
    url: `${rx.url}/detail`,
    headers: { 'content-type': 'application/json', 'webhook-id': eventId },
    body: msg.body,
  });
  assert.deepEqual(res.body.response, { status: 200, error: null, at: d.lastAttemptAt });
  const other = restClient(h.url, (await h.merchant()).apiKey);
  assert.equal((await other.get(`/v1/integration/webhooks/${webhook.id}/deliveries/${d.id}`)).status, 404);
  assert.equal((await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries/dlv_nope`)).status, 404);
});

test('a tampered body, timestamp or signature fails the independent verification', async () => {
  const { m, webhook } = await subscribe('/tamper');
  await emit(m.shopId, 'order.completed', { orderId: 'ord_9', totalMinor: 100 });
  await dispatch();
  const [msg] = at('/tamper');
  assert.ok(msg);
  const now = nowSeconds();
  assert.equal(verifyStandardWebhook(webhook.secret, msg.headers, msg.body, now), true);
  assert.equal(verifyStandardWebhook(webhook.secret, msg.headers, msg.body.replace('100', '1'), now), false);
  assert.equal(verifyStandardWebhook(webhook.secret, msg.headers, `${msg.body} `, now), false);
  const ts = { ...msg.headers, 'webhook-timestamp': String(Number(msg.headers['webhook-timestamp']) + 1) };
  assert.equal(verifyStandardWebhook(webhook.secret, ts, msg.body, now), false);
  const otherId = { ...msg.headers, 'webhook-id': 'whe_someotherevent000' };
  assert.equal(verifyStandardWebhook(webhook.secret, otherId, msg.body, now), false);
  const other = await subscribe('/tamper-other');
  assert.equal(verifyStandardWebhook(other.webhook.secret, msg.headers, msg.body, now), false, 'another secret');
  assert.equal(verifyStandardWebhook(webhook.secret, msg.headers, msg.body, now + 3600), false, 'too old');
});

test('a receiver answering 500 is retried after the backoff and then succeeds', async () => {
  const { m, api, webhook } = await subscribe('/flaky');
  rx.respondWith('/flaky', 500);
  const eventId = await emit(m.shopId, 'order.completed', { orderId: 'ord_retry' });
  await dispatch();
  assert.equal(at('/flaky').length, 1);
  const firstAttemptAt = h.clock.now();

  let [d] = (await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries`)).body.deliveries;
  assert.equal(d.status, 'pending');
  assert.equal(d.attempts, 1);
  assert.equal(d.lastHttpStatus, 500);
  assert.equal(d.lastError, 'HTTP 500');
  assert.equal(d.nextAttemptAt, new Date(firstAttemptAt.getTime() + 30_000).toISOString());

  h.clock.advance(29_000);
  await dispatch();
  assert.equal(at('/flaky').length, 1, 'not due before the backoff has passed');
  h.clock.advance(1_000);
  await dispatch();

  const attempts = at('/flaky');
  assert.equal(attempts.length, 2);
  assert.deepEqual(
    attempts.map((a) => a.headers['webhook-id']),
    [eventId, eventId],
    'webhook-id is stable across retries',
  );
  assert.equal(
    Number(attempts[1]!.headers['webhook-timestamp']) - Number(attempts[0]!.headers['webhook-timestamp']),
    30,
  );
  assert.equal(attempts[0]!.body, attempts[1]!.body);
  assert.ok(attempts.every((a) => verifyStandardWebhook(webhook.secret, a.headers, a.body, nowSeconds(), 60)));

  [d] = (await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries`)).body.deliveries;
  assert.equal(d.status, 'delivered');
  assert.equal(d.attempts, 2);
  assert.equal(d.lastHttpStatus, 200);
  assert.equal(d.lastError, null);
  assert.equal(d.deliveredAt, h.clock.now().toISOString());
});

test('retries back off 30 s, 2 min, 10 min, 1 h, 6 h, 12 h, 24 h, then the delivery is failed', async () => {
  const { m, api, webhook } = await subscribe('/down');
  const schedule = [30, 120, 600, 3600, 21_600, 43_200, 86_400];
  rx.respondWith('/down', ...Array.from({ length: schedule.length + 1 }, () => 503));
  await emit(m.shopId, 'order.completed', { orderId: 'ord_down' });
  await dispatch();
  assert.equal(at('/down').length, 1);
  for (const [i, seconds] of schedule.entries()) {
    h.clock.advance(seconds * 1000 - 1000);
    await dispatch();
    assert.equal(at('/down').length, i + 1, `attempt ${i + 2} is not due yet`);
    h.clock.advance(1000);
    await dispatch();
    assert.equal(at('/down').length, i + 2, `attempt ${i + 2} is made after ${seconds} s`);
  }
  const [d] = (await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries`)).body.deliveries;
  assert.equal(d.status, 'failed');
  assert.equal(d.attempts, 8);
  assert.equal(d.lastHttpStatus, 503);
  assert.equal(d.nextAttemptAt, null);
  assert.equal(at('/down').length, 8);
  h.clock.advance(7 * 86_400_000);
  await dispatch();
  assert.equal(at('/down').length, 8, 'a failed delivery is not retried');
  const failed = await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries?status=failed`);
  assert.equal(failed.body.deliveries.length, 1);
});

test('an unreachable receiver is logged as a failed connection without an HTTP status', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const url = await closedPortUrl();
  const created = await api.post('/v1/integration/webhooks', { merchantId: m.shopId, url, events: ['payment.failed'] });
  await emit(m.shopId, 'payment.failed', { paymentId: 'pay_1' });
  await dispatch();
  const [d] = (await api.get(`/v1/integration/webhooks/${created.body.id}/deliveries`)).body.deliveries;
  assert.equal(d.lastHttpStatus, null);
  assert.equal(d.status, 'pending');
  assert.equal(d.attempts, 1);
  assert.equal(d.lastError, 'connection failed', 'the class, never the socket message');
  assert.ok(!String(d.lastError).includes(created.body.secret));
});

test('events reach only the subscriptions of their shop that list their type, created before the event', async () => {
  const a = await subscribe('/fan-a', ['order.completed']);
  const aPayments = await a.api.post('/v1/integration/webhooks', {
    merchantId: a.m.shopId,
    url: `${rx.url}/fan-a-pay`,
    events: ['payment.failed'],
  });
  const other = await subscribe('/fan-other', ['order.completed', 'payment.failed']);
  await emit(a.m.shopId, 'order.completed', { orderId: 'ord_a' });
  h.clock.advance(1);
  const late = await a.api.post('/v1/integration/webhooks', {
    merchantId: a.m.shopId,
    url: `${rx.url}/fan-late`,
    events: ['order.completed'],
  });
  assert.equal(late.status, 201);
  await dispatch();
  assert.equal(at('/fan-a').length, 1);
  assert.equal(at('/fan-a-pay').length, 0);
  assert.equal(at('/fan-other').length, 0);
  assert.equal(at('/fan-late').length, 0, 'a subscription does not receive events from before it existed');
  const payLog = await a.api.get(`/v1/integration/webhooks/${aPayments.body.id}/deliveries`);
  assert.deepEqual(payLog.body.deliveries, []);
  assert.equal(other.webhook.id.startsWith('whk_'), true);
});

test('deleting a webhook cancels its pending retries', async () => {
  const { m, api, webhook } = await subscribe('/gone');
  rx.respondWith('/gone', 500);
  await emit(m.shopId, 'order.completed', { orderId: 'ord_gone' });
  await dispatch();
  assert.equal(at('/gone').length, 1);
  const deleted = await api.delete(`/v1/integration/webhooks/${webhook.id}`);
  assert.equal(deleted.body.cancelledDeliveries, 1);
  h.clock.advance(3600_000);
  await emit(m.shopId, 'order.completed', { orderId: 'ord_after' });
  await dispatch();
  assert.equal(at('/gone').length, 1, 'neither the retry nor a later event is sent');
  assert.equal((await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries`)).status, 404);
});

test('the delivery log pages newest first', async () => {
  const { m, api, webhook } = await subscribe('/paged');
  for (let i = 0; i < 5; i++) {
    await emit(m.shopId, 'order.completed', { n: i });
    h.clock.advance(10);
  }
  await dispatch();
  const p1 = await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries?limit=3`);
  assert.equal(p1.body.deliveries.length, 3);
  assert.ok(p1.body.nextCursor);
  const p2 = await api.get(`/v1/integration/webhooks/${webhook.id}/deliveries?limit=3&cursor=${p1.body.nextCursor}`);
  assert.equal(p2.body.deliveries.length, 2);
  assert.equal(p2.body.nextCursor, undefined);
  const ids = [...p1.body.deliveries, ...p2.body.deliveries].map((d: { id: string }) => d.id);
  assert.deepEqual(ids, [...ids].sort().reverse());
  assert.equal(new Set(ids).size, 5);
});
