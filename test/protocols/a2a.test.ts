/** The A2A projection: the agent card generated from the registry, and tool calls over JSON-RPC through the SDK client. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentCard } from '@a2a-js/sdk';
import { toolInputSchema, toolOutputSchema } from '../../src/orchestrator/json-schema.ts';
import { SKILL_SCHEMAS_EXTENSION } from '../../src/protocols/a2a/agent-card.ts';
import { a2aClient, outcomeOf, runSkill, sendParts } from '../support/a2a.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { assertCreateTierWithRestrictions } from '../support/surfaces.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

test('the agent card is served with one skill per tool, the same input schemas and a bearer scheme', async () => {
  const res = await restClient(h.url).get('/.well-known/agent-card.json');
  assert.equal(res.status, 200);
  const card = res.body;
  assert.equal(card.name, 'Tessera');
  assert.deepEqual(card.supportedInterfaces, [{ url: `${h.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }]);
  assert.equal(card.capabilities.streaming, false);
  assert.equal(card.capabilities.pushNotifications, false);
  assert.deepEqual(card.securitySchemes.bearer, {
    httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT', description: card.securitySchemes.bearer.httpAuthSecurityScheme.description },
  });
  assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: {} } }]);
  assert.deepEqual(card.defaultInputModes, ['application/json']);
  const tools = h.app.orchestrator.tools;
  assert.deepEqual(card.skills.map((s: any) => s.id), tools.map((t) => t.name));
  const schemas = card.capabilities.extensions.find((e: any) => e.uri === SKILL_SCHEMAS_EXTENSION).params.skills;
  for (const tool of tools) {
    const skill = card.skills.find((s: any) => s.id === tool.name);
    assert.equal(skill.name, tool.title);
    assert.ok(skill.description.startsWith(tool.description), tool.name);
    assert.deepEqual(skill.tags, [tool.area]);
    assert.deepEqual(schemas[tool.name].inputSchema, toolInputSchema(tool), tool.name);
    assert.deepEqual(schemas[tool.name].outputSchema, toolOutputSchema(tool), tool.name);
    const example = JSON.parse(skill.examples[0]);
    assert.equal(example.skill, tool.name);
    assert.deepEqual(Object.keys(example.input), toolInputSchema(tool).required ?? [], tool.name);
  }
  // The SDK client resolves the same card, schemes and schemas from the well-known URL.
  const resolved = await (await a2aClient(h)).getAgentCard();
  assert.deepEqual(AgentCard.toJSON(resolved), card);
});

test('list_pools returns the shop pools as a completed task with a data artifact', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const pool = await runSkill(client, 'create_pool', { merchantId: m.shopId, capacity: 40, title: 'Balcony' });
  assert.ok(pool.ok, JSON.stringify(pool));
  const list = await runSkill(client, 'list_pools', { merchantId: m.shopId });
  assert.ok(list.ok, JSON.stringify(list));
  assert.equal(list.state, 'TASK_STATE_COMPLETED');
  assert.deepEqual(list.output.pools.map((p: any) => [p.id, p.availableCount]), [[pool.output.id, 40]]);
  // The finished task can be read back by its caller.
  const again = outcomeOf(await client.getTask({ tenant: '', id: list.task.id, historyLength: undefined }));
  assert.ok(again.ok);
  assert.deepEqual(again.output, list.output);
});

test('create_tier saves the tier and its restrictions', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  await assertCreateTierWithRestrictions((tool, input) => runSkill(client, tool, input), m.shopId);
});

test('an unknown input field ends input-required with unknown_field', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const r = await runSkill(client, 'create_tier', { eventId: 'evt_x', poolId: 'pool_x', name: 'A', priceMinor: 1, colour: 'red' });
  assert.ok(!r.ok);
  assert.equal(r.state, 'TASK_STATE_INPUT_REQUIRED');
  assert.equal(r.code, 'unknown_field');
  assert.deepEqual(r.error.details.fields, ['colour']);
});

test('input-required can be answered on the same task with corrected input', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const bad = await runSkill(client, 'list_pools', {});
  assert.ok(!bad.ok);
  assert.deepEqual([bad.state, bad.code], ['TASK_STATE_INPUT_REQUIRED', 'invalid_input']);
  const fixed = outcomeOf(await sendParts(client, [{ data: { skill: 'list_pools', input: { merchantId: m.shopId } } }], bad.task.id));
  assert.ok(fixed.ok, JSON.stringify(fixed));
  assert.equal(fixed.task.id, bad.task.id);
  assert.deepEqual(fixed.output.pools, []);
});

test('a key without the required scope is rejected with insufficient_scope', async () => {
  const m = await h.merchant(['merchant:write']);
  const r = await runSkill(await a2aClient(h, m.apiKey), 'list_pools', { merchantId: m.shopId });
  assert.ok(!r.ok);
  assert.deepEqual([r.state, r.code], ['TASK_STATE_REJECTED', 'insufficient_scope']);
});

test("another organization's shop is rejected with not_found", async () => {
  const mine = await h.merchant();
  const theirs = await h.merchant();
  const r = await runSkill(await a2aClient(h, mine.apiKey), 'list_pools', { merchantId: theirs.shopId });
  assert.ok(!r.ok);
  assert.deepEqual([r.state, r.code], ['TASK_STATE_REJECTED', 'not_found']);
});

test('without a credential the task ends auth-required with unauthenticated', async () => {
  const r = await runSkill(await a2aClient(h), 'list_pools', { merchantId: 'shop_x' });
  assert.ok(!r.ok);
  assert.deepEqual([r.state, r.code], ['TASK_STATE_AUTH_REQUIRED', 'unauthenticated']);
});

test('a bad credential ends auth-required with unauthenticated', async () => {
  const r = await runSkill(await a2aClient(h, 'tsk_not_a_real_key'), 'list_pools', { merchantId: 'shop_x' });
  assert.ok(!r.ok);
  assert.deepEqual([r.state, r.code], ['TASK_STATE_AUTH_REQUIRED', 'unauthenticated']);
});

test('a message without a data part ends input-required, saying what to send', async () => {
  const m = await h.merchant();
  const r = outcomeOf(await sendParts(await a2aClient(h, m.apiKey), [{ text: 'list my pools please' }]));
  assert.ok(!r.ok);
  assert.deepEqual([r.state, r.code, r.error.details], ['TASK_STATE_INPUT_REQUIRED', 'invalid_input', { field: 'parts' }]);
  assert.match(r.message, /no data part.*"skill"/);
});

test('an unknown skill or envelope field ends input-required', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const unknown = await runSkill(client, 'no_such_skill', {});
  assert.ok(!unknown.ok);
  assert.deepEqual([unknown.state, unknown.code, unknown.error.details], ['TASK_STATE_INPUT_REQUIRED', 'invalid_input', { field: 'skill' }]);
  const extra = outcomeOf(await sendParts(client, [{ data: { skill: 'list_pools', input: {}, retries: 3 } }]));
  assert.ok(!extra.ok);
  assert.deepEqual([extra.state, extra.code, extra.error.details.fields], ['TASK_STATE_INPUT_REQUIRED', 'unknown_field', ['retries']]);
});

test('an idempotency key in the data part replays the stored outcome', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const input = { merchantId: m.shopId, capacity: 5 };
  const first = await runSkill(client, 'create_pool', input, 'a2a-k-1');
  const again = await runSkill(client, 'create_pool', input, 'a2a-k-1');
  assert.ok(first.ok && again.ok);
  assert.equal(again.output.id, first.output.id);
  assert.deepEqual([first.replayed, again.replayed], [false, true]);
  const other = await runSkill(client, 'create_pool', { ...input, capacity: 6 }, 'a2a-k-1');
  assert.ok(!other.ok);
  assert.deepEqual([other.state, other.code], ['TASK_STATE_REJECTED', 'idempotency_conflict']);
});

test("tasks are listed for their own credential only, newest first, in pages", async () => {
  const a = await h.merchant();
  const b = await h.merchant();
  const mine = await a2aClient(h, a.apiKey);
  const first = await runSkill(mine, 'list_pools', { merchantId: a.shopId });
  h.clock.advance(1000);
  const second = await runSkill(mine, 'list_pools', {});
  const list = (pageToken = '') =>
    mine.listTasks({ tenant: '', contextId: '', status: 0, pageSize: 1, pageToken, statusTimestampAfter: undefined, historyLength: undefined, includeArtifacts: true });
  const page1 = await list();
  assert.deepEqual([page1.totalSize, page1.tasks.map((t) => t.id)], [2, [second.task.id]]);
  const page2 = await list(page1.nextPageToken);
  assert.deepEqual([page2.tasks.map((t) => t.id), page2.nextPageToken], [[first.task.id], '']);
  assert.ok(outcomeOf(page2.tasks[0]!).ok);
  const theirs = await a2aClient(h, b.apiKey);
  await assert.rejects(theirs.getTask({ tenant: '', id: first.task.id, historyLength: undefined }), /not found/i);
});

test('a JSON-RPC body over 1 MiB is refused with 413', async () => {
  const res = await restClient(h.url).post('/a2a/jsonrpc', JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }), { 'a2a-version': '1.0' });
  assert.equal(res.status, 413);
  assert.equal(res.body.code, 'payload_too_large');
});

test('the JSON-RPC endpoint refuses an unsupported A2A-Version and streaming', async () => {
  const rpc = { jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'x' } };
  const res = await restClient(h.url).post('/a2a/jsonrpc', rpc);
  assert.equal(res.status, 200);
  assert.equal(res.body.id, 7);
  assert.equal(res.body.error.code, -32009);
  const streaming = await restClient(h.url).post(
    '/a2a/jsonrpc',
    { jsonrpc: '2.0', id: 8, method: 'SendStreamingMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } } },
    { 'a2a-version': '1.0' },
  );
  assert.equal(streaming.body.id, 8);
  assert.equal(streaming.body.error?.code, -32004, JSON.stringify(streaming.body));
});
