/**
 * Abuse: webhook URLs cannot reach the server's own network (issue #10, finding 4). Every address form of a private,
 * loopback, link-local or otherwise non-public target is refused when the subscription is made; the address actually
 * connected to is checked again at delivery (a name resolving to loopback, a literal stored before the rule); loopback
 * is allowed only with WEBHOOK_ALLOW_LOOPBACK; a failed delivery is logged by class, never by socket message.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { emitEvent } from '../../src/webhooks/outbox.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { closedPortUrl, startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { serverEnvFor } from '../support/database.ts';

let h: Harness; // loopback not allowed (the default)
let dev: App; // the same database, WEBHOOK_ALLOW_LOOPBACK=true
let devUrl: string;
let rx: Receiver;
before(async () => {
  h = await startHarness({ WEBHOOK_DISPATCH_MS: '0' });
  dev = await createApp(
    loadConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      ...serverEnvFor(h.dbUrl),
      WEBHOOK_DISPATCH_MS: '0',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
    }),
    h.db,
    { clock: h.clock, log: pino({ level: 'silent' }) },
  );
  devUrl = await dev.listen();
  rx = await startReceiver();
});
after(async () => {
  await rx?.close();
  await dev?.close();
  await h?.close();
});

const hook = (merchantId: string, url: string) => ({ merchantId, url, events: ['order.completed'] });

test('every non-public address form is refused at subscription', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const refused = [
    'https://[::ffff:169.254.169.254]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[::1]/',
    'https://[::]/',
    'https://0x7f000001/',
    'https://2130706433/',
    'https://0.0.0.0/',
    'https://100.64.0.1/',
    'https://224.0.0.1/',
    'https://255.255.255.255/',
    'https://localhost/',
    'https://localhost./',
    'https://app.localhost/',
    'https://metadata.google.internal/',
    'https://printer.local/',
    'http://127.0.0.1:9/hook',
    'http://localhost:8080/hook',
  ];
  for (const url of refused) {
    const res = await api.post('/v1/integration/webhooks', hook(m.shopId, url));
    assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'invalid_webhook_url', url);
  }
  assert.equal((await api.post('/v1/integration/webhooks', hook(m.shopId, 'https://hooks.example.com/x'))).status, 201);
});

const SHARED = 'a-shared-secret-of-16+';

test('IPv6 forms that embed an IPv4 address are refused for webhooks and the ACP webhook', async () => {
  // The IPv4-compatible form ([::127.0.0.1]) was accepted: ipaddr.js calls it unicast.
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const refused = [
    'https://[::127.0.0.1]/', // IPv4-compatible (::/96), loopback inside
    'https://[::169.254.169.254]/',
    'https://[::10.0.0.1]/',
    'https://[::8.8.8.8]/', // the whole deprecated block, whatever it embeds
    'https://[::ffff:0:127.0.0.1]/', // IPv4-translated
    'https://[64:ff9b::127.0.0.1]/', // NAT64
    'https://[64:ff9b:1::a00:1]/', // local-use NAT64
    'https://[2002:7f00:1::1]/', // 6to4 of 127.0.0.1
    'https://[2002:a9fe:a9fe::1]/', // 6to4 of 169.254.169.254
    'https://[2001:0:7f00:1::1]/', // Teredo
  ];
  for (const url of refused) {
    const hookRes = await api.post('/v1/integration/webhooks', hook(m.shopId, url));
    assert.deepEqual([hookRes.status, hookRes.body.code], [400, 'invalid_webhook_url'], `webhook ${url}`);
    const acp = await api.put(`/v1/integration/shops/${m.shopId}/acp-webhook`, { url, secret: SHARED });
    assert.deepEqual([acp.status, acp.body.code], [400, 'invalid_webhook_url'], `ACP webhook ${url}`);
    // Nor with the development setting: none of these is loopback as written.
    const devRes = await restClient(devUrl, m.apiKey).post('/v1/integration/webhooks', hook(m.shopId, url));
    assert.equal(devRes.status, 400, `dev webhook ${url}: ${JSON.stringify(devRes.body)}`);
  }
  const acp = { url: 'https://agents.example.com/acp', secret: SHARED };
  assert.equal((await api.put(`/v1/integration/shops/${m.shopId}/acp-webhook`, acp)).status, 200);
});

test('a delivery is checked at connect time: loopback targets stored by a development server are not reached by one without the setting', async () => {
  const m = await h.merchant();
  const port = new URL(rx.url).port;
  const devApi = restClient(devUrl, m.apiKey);
  const ids: string[] = [];
  for (const url of [
    `${rx.url}/literal`,
    `http://localhost:${port}/by-name`,
    `http://[::ffff:7f00:1]:${port}/mapped`,
  ]) {
    const res = await devApi.post('/v1/integration/webhooks', hook(m.shopId, url));
    assert.equal(res.status, 201, `${url}: ${JSON.stringify(res.body)}`);
    ids.push(res.body.id);
  }
  await h.db.transaction((em) =>
    emitEvent(em, { shopId: m.shopId, type: 'order.completed', data: { orderId: 'ord_1' }, now: h.clock.now() }),
  );
  await h.app.services.webhooks.dispatchOnce();
  assert.deepEqual(
    rx.received.map((r) => r.path),
    [],
    'nothing reached the loopback receiver',
  );
  const api = restClient(h.url, m.apiKey);
  for (const id of ids) {
    const [d] = (await api.get(`/v1/integration/webhooks/${id}/deliveries`)).body.deliveries;
    assert.equal(d.lastError, 'refused: the address is not public', JSON.stringify(d));
  }
  // The development server (same database) delivers to loopback.
  await h.db.transaction((em) =>
    emitEvent(em, { shopId: m.shopId, type: 'order.completed', data: { orderId: 'ord_2' }, now: h.clock.now() }),
  );
  await dev.services.webhooks.dispatchOnce();
  assert.ok(
    rx.received.some((r) => r.path === '/literal'),
    'the development server reaches its loopback receiver',
  );
});

test('a failed delivery is logged by class, not by socket message', async () => {
  const m = await h.merchant();
  const created = await restClient(devUrl, m.apiKey).post(
    '/v1/integration/webhooks',
    hook(m.shopId, await closedPortUrl()),
  );
  await h.db.transaction((em) =>
    emitEvent(em, { shopId: m.shopId, type: 'order.completed', data: { orderId: 'ord_3' }, now: h.clock.now() }),
  );
  await dev.services.webhooks.dispatchOnce();
  const [d] = (await restClient(h.url, m.apiKey).get(`/v1/integration/webhooks/${created.body.id}/deliveries`)).body
    .deliveries;
  assert.equal(d.lastError, 'connection failed');
});
