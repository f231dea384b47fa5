/** AP2 is refused with one stable code (ap2_unsupported) on REST, MCP and A2A, naming the supported alternatives. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Message } from '@a2a-js/sdk';
import { a2aClient, outcomeOf, runSkill } from '../support/a2a.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { callTool, mcpHttp, mcpInMemory } from '../support/mcp.ts';
import { restClient } from '../support/rest.ts';

const AP2_URI = 'https://github.com/google-agentic-commerce/ap2/tree/v0.1';

let h: Harness;
before(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
});
after(async () => {
  await h?.close();
});

function assertRefusal(error: any, label: string): void {
  assert.equal(error.code, 'ap2_unsupported', label);
  assert.match(error.message, /AP2 is not supported pending verified checkout authorization/, label);
  assert.match(error.message, /POST \/v1\/vic\/purchase-initiate/, label);
  const names = error.details.alternatives.map((a: any) => a.name);
  assert.deepEqual(names, ['signed mandate', 'ACP checkout session', 'permission'], label);
}

test('any /v1/ap2/... request, whatever the method, is 422 ap2_unsupported, with or without credentials', async () => {
  const m = await h.merchant();
  for (const api of [restClient(h.url), restClient(h.url, m.apiKey)]) {
    for (const [method, path] of [
      ['POST', '/v1/ap2/mandates'],
      ['GET', '/v1/ap2/anything/at/all'],
      ['PUT', '/v1/ap2/x'],
      ['DELETE', '/v1/ap2/payments/1'],
      ['POST', '/v1/ap2'],
    ] as const) {
      const res = await api.call(method, path, method === 'GET' || method === 'DELETE' ? undefined : '{not even json');
      assert.equal(res.status, 422, `${method} ${path}`);
      assertRefusal(res.body, `${method} ${path}`);
    }
  }
});

test('a payload with vct mandate.* sent to an ordinary tool is refused before validation (REST)', async () => {
  const m = await h.merchant();
  const api = restClient(h.url, m.apiKey);
  const top = await api.post('/v1/integration/pools', { merchantId: m.shopId, capacity: 5, vct: 'mandate.payment.1' });
  assert.equal(top.status, 422);
  assertRefusal(top.body, 'top-level vct');
  const nested = await api.post('/v1/integration/events', {
    merchantId: m.shopId,
    title: 'x',
    credential: { vct: 'mandate.intent' },
  });
  assertRefusal(nested.body, 'nested vct');
  const anonymous = await restClient(h.url).post('/v1/integration/pools', { vct: 'mandate.cart' });
  assert.equal(anonymous.status, 422, 'recognised before anything else, without spend authority');
  const ordinary = await api.post('/v1/integration/pools', {
    merchantId: m.shopId,
    capacity: 5,
    vct: 'something.else',
  });
  assert.deepEqual([ordinary.status, ordinary.body.code], [400, 'unknown_field'], 'only mandate.* is AP2');
  const pools = await api.get(`/v1/integration/pools?merchantId=${m.shopId}`);
  assert.equal(pools.body.pools.length, 0, 'nothing was created');
});

test('MCP: a vct mandate.* payload is an error result with ap2_unsupported', async () => {
  const m = await h.merchant();
  for (const connect of [mcpInMemory, mcpHttp]) {
    const client = await connect(h, m.apiKey);
    const r = await callTool(client, 'create_pool', { merchantId: m.shopId, capacity: 5, vct: 'mandate.payment' });
    assert.ok(!r.ok);
    assertRefusal(r.error, connect.name);
    await client.close();
  }
});

test('A2A: an AP2 extension URI, ap2.mandates.* data or a vct mandate.* input ends in a rejected task with ap2_unsupported', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const send = async (parts: unknown[], extensions: string[] = []) => {
    const message = Message.fromJSON({ messageId: crypto.randomUUID(), role: 'ROLE_USER', parts, extensions });
    return outcomeOf(await client.sendMessage({ tenant: '', configuration: undefined, metadata: undefined, message }));
  };
  const listEvents = { data: { skill: 'list_events', input: { id: m.shopId } }, mediaType: 'application/json' };
  const byUri = await send([listEvents], [AP2_URI]);
  assert.equal(byUri.state, 'TASK_STATE_REJECTED');
  assert.ok(!byUri.ok);
  assertRefusal(byUri.error, 'extension uri');
  const mandate = {
    data: { 'ap2.mandates.IntentMandate': { natural_language_description: 'two tickets' } },
    mediaType: 'application/json',
  };
  const byData = await send([mandate]);
  assert.equal(byData.state, 'TASK_STATE_REJECTED');
  assert.ok(!byData.ok);
  assertRefusal(byData.error, 'ap2.mandates data');
  // A message of text alone is explained, unless it names AP2: then it is refused like any other AP2 request.
  const textByUri = await send([{ text: 'Buy two tickets under my AP2 mandate.' }], [AP2_URI]);
  assert.equal(textByUri.state, 'TASK_STATE_REJECTED');
  assert.ok(!textByUri.ok);
  assertRefusal(textByUri.error, 'text with an AP2 extension uri');
  const withSkill = await send([listEvents, mandate]);
  assert.ok(!withSkill.ok);
  assertRefusal(withSkill.error, 'a skill call next to a mandate');
  const byVct = await runSkill(client, 'create_pool', { merchantId: m.shopId, capacity: 2, vct: 'mandate.checkout' });
  assert.equal(byVct.state, 'TASK_STATE_REJECTED');
  assert.ok(!byVct.ok);
  assertRefusal(byVct.error, 'vct in the skill input');
  const fine = await send([listEvents], ['https://example.test/other-extension']);
  assert.ok(fine.ok, 'other extensions are not AP2');
  assert.equal(fine.state, 'MESSAGE', 'list_events only reads: its answer is a message');
});
