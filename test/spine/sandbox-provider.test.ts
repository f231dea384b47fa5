import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { methodForCard, SANDBOX_METHODS } from '../../src/payments/sandbox-methods.ts';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { must, shopWithTier, startSpineHarness } from '../support/spine.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

test(`${verifies('SPEC-9-second-provider-off')}a shop links the sandbox provider; the second provider is refused as not switched on`, async () => {
  const s = await shopWithTier(h);
  const linked = must(
    await s.api.put(`/v1/integration/shops/${s.shopId}/payment-provider`, { provider: 'sandbox' }),
    200,
  );
  assert.equal(linked.paymentProvider, 'sandbox');
  const refused = await s.api.put(`/v1/integration/shops/${s.shopId}/payment-provider`, { provider: 'stripe' });
  assert.equal(refused.status, 409);
  assert.equal(refused.body.code, 'provider_not_enabled');
  assert.match(refused.body.message, /not switched on in the sandbox/);
  assert.equal(must(await s.api.get(`/v1/catalog/shops/${s.shopId}`), 200).paymentProvider, 'sandbox');
  const unknown = await s.api.put(`/v1/integration/shops/${s.shopId}/payment-provider`, { provider: 'paypal' });
  assert.equal(unknown.status, 400);
});

test(`${verifies('SPEC-5.3-admin-scope')}linking a provider needs merchant:admin and the shop’s own organization`, async () => {
  const s = await shopWithTier(h);
  const writer = restClient(h.url, (await h.merchant(['merchant:read', 'merchant:write'])).apiKey);
  assert.equal(
    (await writer.put(`/v1/integration/shops/${s.shopId}/payment-provider`, { provider: 'sandbox' })).body.code,
    'insufficient_scope',
  );
  const stranger = restClient(h.url, (await h.merchant()).apiKey);
  assert.equal(
    (await stranger.put(`/v1/integration/shops/${s.shopId}/payment-provider`, { provider: 'sandbox' })).status,
    404,
  );
});

test(`${verifies('CONTRACT-sandbox-payment-methods')}the hosted card form is a small self-contained page that maps every test card to its method`, async () => {
  const res = await fetch(new URL('/sandbox/card-form?origin=https://shop.example', h.url));
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  const html = await res.text();
  assert.ok(html.length < 4000);
  assert.doesNotMatch(html, /<(link|img)\b|src=/i, 'no external assets');
  assert.match(html, /postMessage/);
  assert.match(html, /"https:\/\/shop\.example"/);
  for (const [method, m] of Object.entries(SANDBOX_METHODS)) {
    assert.ok(html.includes(`"${m.cardNumber}":{"paymentMethod":"${method}"`), method);
    assert.equal(methodForCard(m.cardNumber.replace(/(\d{4})/g, '$1 ')), method);
  }
  const anyOrigin = await (await fetch(new URL('/sandbox/card-form?origin=javascript:alert(1)', h.url))).text();
  assert.match(anyOrigin, /const TARGET = "\*"/);
});

test('the spine operations are in the OpenAPI document with their codes and statuses', async () => {
  const doc = must(await restClient(h.url).get('/v1/openapi.json'), 200);
  const confirm = doc.paths['/v1/ticketing/reservations/{id}/confirm'].post;
  assert.equal(confirm.operationId, 'confirm');
  assert.ok(confirm.responses['200'] && confirm.responses['202'] && confirm.responses['402']);
  assert.ok(doc.paths['/v1/ticketing/quotes'].post.responses['422'].description.includes('geo_not_allowed'));
  for (const [path, method] of [
    ['/v1/ticketing/reservations', 'post'],
    ['/v1/ticketing/reservations/{id}', 'get'],
    ['/v1/ticketing/reservations/{id}/release', 'post'],
    ['/v1/ticketing/orders/{id}', 'get'],
    ['/v1/payments/authorize', 'post'],
    ['/v1/payments/{id}', 'get'],
    ['/v1/integration/shops/{id}/payment-provider', 'put'],
  ] as const) {
    assert.ok(doc.paths[path]?.[method], `${method} ${path}`);
  }
});
