/**
 * The console's webhook operations (issue #12 item 2): a test event to one subscription, signed and shown in the
 * delivery log, and redelivery of a delivery with the same event id; plus `list_shops`, the console's shops page.
 * Over REST, MCP and A2A; another organization's webhook or delivery answers 404.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import type { Outcome } from '../support/outcome.ts';
import { SURFACES } from '../support/surfaces.ts';
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

const dispatch = () => h.app.services.webhooks.dispatchOnce();
function outputOf(o: Outcome): any {
  assert.ok(o.ok, JSON.stringify(o));
  return o.output;
}
const at = (path: string) => rx.received.filter((r) => r.path === path);

for (const surface of SURFACES) {
  describe(`over ${surface.name}`, () => {
    test('a test event goes to this subscription only, signed, and shows in its delivery log; redelivery sends it again', async () => {
      const m = await h.merchant();
      const { call, done } = await surface.connect(h, m.apiKey);
      try {
        assert.deepEqual(
          outputOf(await call('list_shops', {})).shops.map((s: { id: string }) => s.id),
          [m.shopId],
          'list_shops: the organization’s shop',
        );
        const path = `/test-${surface.name.replace(/\W/g, '-')}`;
        const hook = await call('create_webhook', {
          merchantId: m.shopId,
          url: `${rx.url}${path}`,
          events: ['order.completed'],
        });
        assert.ok(hook.ok, JSON.stringify(hook));
        const other = await call('create_webhook', {
          merchantId: m.shopId,
          url: `${rx.url}${path}-other`,
          events: ['order.completed'],
        });
        assert.ok(other.ok);

        const sent = await call('send_test_webhook_event', { id: hook.output.id });
        assert.ok(sent.ok, JSON.stringify(sent));
        assert.deepEqual(
          [sent.output.type, sent.output.status, sent.output.attempts, sent.output.webhookId],
          ['webhook.test', 'pending', 0, hook.output.id],
        );
        const log = await call('list_webhook_deliveries', { id: hook.output.id });
        assert.ok(log.ok);
        assert.deepEqual(
          log.output.deliveries.map((d: { id: string }) => d.id),
          [sent.output.id],
        );

        await dispatch();
        const [msg, ...more] = at(path);
        assert.ok(msg, 'the test event was delivered');
        assert.equal(more.length, 0);
        assert.equal(at(`${path}-other`).length, 0, 'the other subscription gets nothing');
        assert.equal(msg.headers['webhook-id'], sent.output.eventId);
        assert.ok(
          verifyStandardWebhook(hook.output.secret, msg.headers, msg.body, Math.floor(h.clock.now().getTime() / 1000)),
        );
        assert.deepEqual(JSON.parse(msg.body).data, { webhookId: hook.output.id, merchantId: m.shopId, test: true });
        const delivered = outputOf(await call('list_webhook_deliveries', { id: hook.output.id })).deliveries[0];
        assert.deepEqual([delivered.status, delivered.attempts, delivered.lastHttpStatus], ['delivered', 1, 200]);

        const again = await call('redeliver_webhook_delivery', { id: hook.output.id, deliveryId: sent.output.id });
        assert.ok(again.ok, JSON.stringify(again));
        assert.deepEqual([again.output.status, again.output.attempts, again.output.deliveredAt], ['pending', 0, null]);
        const twice = await call('redeliver_webhook_delivery', { id: hook.output.id, deliveryId: sent.output.id });
        assert.deepEqual(
          [twice.ok, !twice.ok && twice.code],
          [false, 'delivery_pending'],
          'a queued delivery is not queued twice',
        );
        await dispatch();
        assert.equal(at(path).length, 2);
        assert.equal(
          at(path)[1]!.headers['webhook-id'],
          sent.output.eventId,
          'the same event id, so a receiver can tell',
        );
        assert.equal(
          outputOf(await call('list_webhook_deliveries', { id: hook.output.id })).deliveries[0].status,
          'delivered',
        );

        const unknown = await call('redeliver_webhook_delivery', { id: hook.output.id, deliveryId: 'dlv_unknown' });
        assert.equal(!unknown.ok && unknown.code, 'not_found');
        const wrongHook = await call('redeliver_webhook_delivery', { id: other.output.id, deliveryId: sent.output.id });
        assert.equal(!wrongHook.ok && wrongHook.code, 'not_found', 'a delivery is found only under its own webhook');
      } finally {
        await done();
      }
    });
  });
}

test('a failed delivery is redelivered with a fresh retry schedule', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const hook = (
    await api.post('/v1/integration/webhooks', {
      merchantId: m.shopId,
      url: await closedPortUrl(),
      events: ['order.completed'],
    })
  ).body;
  const sent = (await api.post(`/v1/integration/webhooks/${hook.id}/test`, {})).body;
  await h.db.execute(
    `update webhook_deliveries set status = 'failed', attempts = 8, next_attempt_at = null where id = ?`,
    [sent.id],
  );
  const res = await api.post(`/v1/integration/webhooks/${hook.id}/deliveries/${sent.id}/redeliver`, {});
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    [res.body.status, res.body.attempts, res.body.nextAttemptAt],
    ['pending', 0, h.clock.now().toISOString()],
  );
});

test('another organization’s webhook and delivery answer 404; a read-only key may not send or redeliver', async () => {
  const m = await h.merchant();
  const hook = (
    await restClient(h.url, m.apiKey).post('/v1/integration/webhooks', {
      merchantId: m.shopId,
      url: `${rx.url}/x`,
      events: ['order.completed'],
    })
  ).body;
  const sent = (await restClient(h.url, m.apiKey).post(`/v1/integration/webhooks/${hook.id}/test`, {})).body;
  const stranger = restClient(h.url, (await h.merchant()).apiKey);
  const a = await stranger.post(`/v1/integration/webhooks/${hook.id}/test`, {});
  const b = await stranger.post(`/v1/integration/webhooks/${hook.id}/deliveries/${sent.id}/redeliver`, {});
  assert.deepEqual([a.status, a.body.code, b.status, b.body.code], [404, 'not_found', 404, 'not_found']);
  const reader = restClient(h.url, (await h.merchant(['merchant:read'])).apiKey);
  assert.equal((await reader.post(`/v1/integration/webhooks/${hook.id}/test`, {})).body.code, 'insufficient_scope');
});

test('list_shops lists the organization’s live shops only', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const spare = (await api.post('/v1/integration/shops', { name: 'Spare', currency: 'EUR', description: 'Second' }))
    .body;
  const listed = (await api.get('/v1/catalog/shops')).body;
  assert.deepEqual(listed.shops.map((s: { id: string }) => s.id).sort(), [m.shopId, spare.id as string].sort());
  assert.equal(listed.shops.find((s: { id: string }) => s.id === spare.id).description, 'Second');
  assert.equal((await api.delete(`/v1/integration/shops/${spare.id}`)).status, 200);
  assert.deepEqual(
    (await api.get('/v1/catalog/shops')).body.shops.map((s: { id: string }) => s.id),
    [m.shopId],
    'a deleted shop is gone',
  );
  const unknown = await api.get('/v1/catalog/shops?all=true');
  assert.deepEqual([unknown.status, unknown.body.code], [400, 'unknown_field']);
});
