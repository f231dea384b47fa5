import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import type { Receiver } from '../support/webhook-receiver.ts';
import { startWebhookHarness } from './harness.ts';
import { verifyStandardWebhook } from '../support/webhook-verify.ts';

let h: Harness;
let rx: Receiver;
before(async () => ({ h, rx } = await startWebhookHarness()));
after(async () => {
  await h?.close();
  await rx?.close();
});

/** A shop with one tier on sale, a webhook on `path` for `events`, and a held reservation of 2 places. */
async function heldReservation(path: string, events: string[]) {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const hook = await api.post('/v1/integration/webhooks', { merchantId: m.shopId, url: `${rx.url}${path}`, events });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  const startsAt = new Date(h.clock.now().getTime() + 30 * 86_400_000).toISOString();
  const event = await api.post('/v1/integration/events', { merchantId: m.shopId, title: 'Webhook Night', startsAt });
  const pool = await api.post('/v1/integration/pools', { merchantId: m.shopId, eventId: event.body.id, capacity: 10 });
  const tier = await api.post('/v1/integration/tiers', {
    eventId: event.body.id,
    poolId: pool.body.id,
    name: 'GA',
    priceMinor: 2500,
  });
  assert.equal(tier.status, 201, JSON.stringify(tier.body));
  const quote = await api.post('/v1/ticketing/quotes', { tierId: tier.body.id, quantity: 2 });
  assert.equal(quote.status, 201, JSON.stringify(quote.body));
  const held = await api.post(
    '/v1/ticketing/reservations',
    { quoteId: quote.body.quoteId },
    { 'idempotency-key': `rsv-${path}` },
  );
  assert.equal(held.status, 201, JSON.stringify(held.body));
  return {
    api,
    secret: hook.body.secret as string,
    webhookId: hook.body.id as string,
    reservationId: held.body.reservation.id as string,
  };
}

const at = (path: string) => rx.received.filter((r) => r.path === path);

test('a real confirm produces a signed order.completed delivery', async () => {
  const { api, secret, webhookId, reservationId } = await heldReservation('/spine-completed', ['order.completed']);
  const confirmed = await api.post(
    `/v1/ticketing/reservations/${reservationId}/confirm`,
    { paymentMethod: 'pm_sandbox_visa' },
    { 'idempotency-key': 'confirm-1' },
  );
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  await h.app.services.webhooks.dispatchOnce();

  const [msg, ...more] = at('/spine-completed');
  assert.ok(msg, 'the order.completed event was delivered');
  assert.equal(more.length, 0);
  assert.ok(verifyStandardWebhook(secret, msg.headers, msg.body, Math.floor(h.clock.now().getTime() / 1000)));
  const body = JSON.parse(msg.body);
  assert.equal(body.type, 'order.completed');
  assert.equal(body.data.reservation.id, reservationId);
  assert.equal(body.data.reservation.state, 'completed');
  assert.equal(body.data.order.id, confirmed.body.order.id);
  assert.equal(body.data.order.totalMinor, confirmed.body.order.totalMinor);
  assert.equal(body.data.order.tickets.length, 2);
  assert.equal(body.data.payment.state, 'succeeded');

  const log = await api.get(`/v1/integration/webhooks/${webhookId}/deliveries`);
  assert.equal(log.body.deliveries.length, 1);
  assert.equal(log.body.deliveries[0].type, 'order.completed');
  assert.equal(log.body.deliveries[0].status, 'delivered');
  assert.equal(log.body.deliveries[0].eventId, msg.headers['webhook-id']);
});

test('a declined payment produces a payment.failed delivery, and only the subscribed types arrive', async () => {
  const { api, secret, reservationId } = await heldReservation('/spine-declined', ['payment.failed']);
  const declined = await api.post(
    `/v1/ticketing/reservations/${reservationId}/confirm`,
    { paymentMethod: 'pm_sandbox_declined' },
    { 'idempotency-key': 'confirm-2' },
  );
  assert.equal(declined.body.code, 'payment_declined');
  const paid = await api.post(
    `/v1/ticketing/reservations/${reservationId}/confirm`,
    { paymentMethod: 'pm_sandbox_visa' },
    { 'idempotency-key': 'confirm-3' },
  );
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  await h.app.services.webhooks.dispatchOnce();

  const received = at('/spine-declined');
  assert.deepEqual(
    received.map((r) => JSON.parse(r.body).type),
    ['payment.failed'],
    'order.completed is not subscribed',
  );
  const body = JSON.parse(received[0]!.body);
  assert.equal(body.data.payment.state, 'failed');
  assert.equal(body.data.reservation.state, 'held', 'a synchronous decline keeps the hold so the buyer can retry');
  assert.equal(body.data.reservation.id, reservationId);
  assert.ok(
    verifyStandardWebhook(secret, received[0]!.headers, received[0]!.body, Math.floor(h.clock.now().getTime() / 1000)),
  );
});
