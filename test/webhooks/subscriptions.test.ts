import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { issueApiKey } from '../../src/domain/merchants/merchants.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ WEBHOOK_DISPATCH_MS: '0', WEBHOOK_ALLOW_LOOPBACK: 'true' });
});
after(async () => {
  await h?.close();
});

const hook = (merchantId: string, url = 'https://hooks.example.com/tessera', events = ['order.completed']) => ({
  merchantId,
  url,
  events,
});

test('a merchant creates, lists and deletes a webhook', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const created = await api.post(
    '/v1/integration/webhooks',
    hook(m.shopId, 'https://hooks.example.com/a', ['order.completed', 'payment.failed']),
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.match(created.body.id, /^whk_/);
  assert.equal(created.body.merchantId, m.shopId);
  assert.equal(created.body.url, 'https://hooks.example.com/a');
  assert.deepEqual(created.body.events, ['order.completed', 'payment.failed']);
  assert.equal(created.body.status, 'active');

  const list = await api.get(`/v1/integration/webhooks?merchantId=${m.shopId}`);
  assert.equal(list.status, 200);
  assert.deepEqual(
    list.body.webhooks.map((w: { id: string }) => w.id),
    [created.body.id],
  );

  const deleted = await api.delete(`/v1/integration/webhooks/${created.body.id}`);
  assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
  assert.deepEqual(deleted.body, { id: created.body.id, deleted: true, cancelledDeliveries: 0 });
  assert.deepEqual((await api.get(`/v1/integration/webhooks?merchantId=${m.shopId}`)).body.webhooks, []);
  assert.equal((await api.delete(`/v1/integration/webhooks/${created.body.id}`)).status, 404);
});

test('the signing secret is shown once at creation and is not stored in plaintext', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const created = await api.post('/v1/integration/webhooks', hook(m.shopId));
  const secret: string = created.body.secret;
  assert.match(secret, /^whsec_[A-Za-z0-9+/]+={0,2}$/);
  assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
  const list = await api.get(`/v1/integration/webhooks?merchantId=${m.shopId}`);
  assert.equal(list.body.webhooks[0].secret, undefined);
  assert.ok(!JSON.stringify(list.body).includes(secret.slice(6)));
  const deliveries = await api.get(`/v1/integration/webhooks/${created.body.id}/deliveries`);
  assert.ok(!JSON.stringify(deliveries.body).includes(secret.slice(6)));
  const [row] = await h.db.execute<{ secret_sealed: string }>(
    'select secret_sealed from webhook_subscriptions where id = ?',
    [created.body.id],
  );
  assert.ok(row && !row.secret_sealed.includes(secret.slice(6)), 'the stored value is sealed');
  const again = await api.post('/v1/integration/webhooks', hook(m.shopId));
  assert.notEqual(again.body.secret, secret, 'each webhook has its own secret');
});

test(`${verifies('SPEC-6-webhooks-write-scope', 'SPEC-5.3-scopes')}managing webhooks needs merchant:write; reading them needs merchant:read`, async () => {
  const owner = await h.merchant();
  const writer = restClient(h.url, owner.apiKey);
  const created = await writer.post('/v1/integration/webhooks', hook(owner.shopId));
  const readKey = await h.db.transaction(async (em) => {
    const k = issueApiKey(em, {
      organizationId: owner.organizationId,
      name: 'read-only',
      scopes: ['merchant:read'],
      now: h.clock.now(),
    });
    await em.flush();
    return k.token;
  });
  const reader = restClient(h.url, readKey);
  const refused = await reader.post('/v1/integration/webhooks', hook(owner.shopId));
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, 'insufficient_scope');
  assert.deepEqual(refused.body.details.missing, ['merchant:write']);
  assert.equal((await reader.delete(`/v1/integration/webhooks/${created.body.id}`)).body.code, 'insufficient_scope');
  assert.equal((await reader.get(`/v1/integration/webhooks?merchantId=${owner.shopId}`)).status, 200);
  assert.equal((await reader.get(`/v1/integration/webhooks/${created.body.id}/deliveries`)).status, 200);

  const attestOnly = await h.merchant(['mandates:attest']);
  const attest = restClient(h.url, attestOnly.apiKey);
  assert.equal(
    (await attest.get(`/v1/integration/webhooks?merchantId=${attestOnly.shopId}`)).body.code,
    'insufficient_scope',
  );
  assert.equal((await restClient(h.url).get(`/v1/integration/webhooks?merchantId=${owner.shopId}`)).status, 401);
});

test("another organization's shop or webhook answers 404", async () => {
  const a = await h.merchant();
  const b = await h.merchant();
  const apiA = restClient(h.url, a.apiKey);
  const apiB = restClient(h.url, b.apiKey);
  const created = await apiA.post('/v1/integration/webhooks', hook(a.shopId));
  assert.equal(created.status, 201);

  const create = await apiB.post('/v1/integration/webhooks', hook(a.shopId));
  assert.equal(create.status, 404);
  assert.equal(create.body.code, 'not_found');
  assert.equal((await apiB.get(`/v1/integration/webhooks?merchantId=${a.shopId}`)).status, 404);
  assert.equal((await apiB.delete(`/v1/integration/webhooks/${created.body.id}`)).status, 404);
  assert.equal((await apiB.get(`/v1/integration/webhooks/${created.body.id}/deliveries`)).status, 404);
  assert.equal((await apiA.get('/v1/integration/webhooks/whk_doesnotexist000/deliveries')).status, 404);
  assert.equal(
    (await apiA.get(`/v1/integration/webhooks?merchantId=${a.shopId}`)).body.webhooks.length,
    1,
    'still there',
  );
});

test('webhook URLs must be https, or http on localhost only', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const refusals: Array<[string, string]> = [
    ['http://hooks.example.com/x', 'scheme'],
    ['ftp://hooks.example.com/x', 'scheme'],
    ['javascript:alert(1)', 'scheme'],
    ['not a url', 'invalid'],
    ['https://user:pw@hooks.example.com/x', 'credentials'],
    ['https://10.1.2.3/x', 'private_address'],
    ['https://192.168.0.10/x', 'private_address'],
    ['https://169.254.169.254/latest', 'private_address'],
    ['https://[fd00::1]/x', 'private_address'],
  ];
  for (const [url, reason] of refusals) {
    const res = await api.post('/v1/integration/webhooks', hook(m.shopId, url));
    assert.equal(res.status, 400, url);
    assert.equal(res.body.code, 'invalid_webhook_url', url);
    assert.equal(res.body.details.reason, reason, url);
  }
  for (const url of ['http://localhost:8080/hook', 'http://127.0.0.1:9/hook', 'https://hooks.example.com/x']) {
    assert.equal((await api.post('/v1/integration/webhooks', hook(m.shopId, url))).status, 201, url);
  }
});

test('webhook input is validated strictly', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const unknownType = await api.post('/v1/integration/webhooks', hook(m.shopId, undefined, ['order.exploded']));
  assert.equal(unknownType.status, 400);
  assert.equal(unknownType.body.code, 'invalid_input');
  assert.equal((await api.post('/v1/integration/webhooks', hook(m.shopId, undefined, []))).body.code, 'invalid_input');
  const extra = await api.post('/v1/integration/webhooks', { ...hook(m.shopId), secret: 'whsec_mine' });
  assert.equal(extra.status, 400);
  assert.equal(extra.body.code, 'unknown_field');
});

test('a shop may have at most 16 webhooks', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  for (let i = 0; i < 16; i++)
    assert.equal(
      (await api.post('/v1/integration/webhooks', hook(m.shopId, `https://h.example.com/${i}`))).status,
      201,
    );
  const over = await api.post('/v1/integration/webhooks', hook(m.shopId));
  assert.equal(over.status, 409);
  assert.equal(over.body.code, 'webhook_limit_reached');
});

test('the webhook operations are in the OpenAPI document', async () => {
  const doc = (await restClient(h.url).get('/v1/openapi.json')).body;
  assert.equal(doc.paths['/v1/integration/webhooks'].post.operationId, 'create_webhook');
  assert.equal(doc.paths['/v1/integration/webhooks'].get.operationId, 'list_webhooks');
  assert.equal(doc.paths['/v1/integration/webhooks/{id}'].delete.operationId, 'delete_webhook');
  assert.equal(doc.paths['/v1/integration/webhooks/{id}/deliveries'].get.operationId, 'list_webhook_deliveries');
});
