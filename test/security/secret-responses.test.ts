/**
 * Responses that carry a secret are never cached (issue #10, finding 8): API key creation, session mint, webhook
 * creation over REST, and every MCP and A2A answer (a tool output may carry a token) say `Cache-Control: no-store`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ WEBHOOK_DISPATCH_MS: '0' });
});
after(async () => {
  await h?.close();
});

test('secret-bearing REST responses, and every MCP and A2A answer, say Cache-Control: no-store', async () => {
  const m = await h.merchant();
  const owner = await h.app.authenticator.sign(
    { typ: 'console', sub: m.ownerId, org: m.organizationId, role: 'owner' } as never,
    600,
  );
  const key = await restClient(h.url, owner).post('/v1/console/api-keys', { name: 'ci', scopes: ['merchant:read'] });
  assert.equal(key.status, 201);
  const api = restClient(h.url, m.apiKey);
  const session = await api.post('/v1/integration/buyer-sessions', {
    merchantId: m.shopId,
    email: 'someone@example.test',
  });
  assert.equal(session.status, 201);
  const hook = await api.post('/v1/integration/webhooks', {
    merchantId: m.shopId,
    url: 'https://hooks.example.com/x',
    events: ['order.completed'],
  });
  assert.equal(hook.status, 201);
  for (const res of [key, session, hook]) assert.equal(res.headers.get('cache-control'), 'no-store');
  const a2a = await api.post(
    '/a2a/jsonrpc',
    { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } },
    { 'a2a-version': '1.0' },
  );
  assert.equal(a2a.headers.get('cache-control'), 'no-store');
  const mcp = await api.post(
    '/mcp',
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
  );
  assert.equal(mcp.headers.get('cache-control'), 'no-store', String(mcp.status));
});
