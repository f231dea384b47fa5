/**
 * The A2A projection: the agent card generated from the registry, and tool calls over JSON-RPC through the SDK client.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentCard, Message, Role } from '@a2a-js/sdk';
import { toolInputSchema, toolOutputSchema } from '../../src/orchestrator/json-schema.ts';
import { SKILL_SCHEMAS_EXTENSION } from '../../src/protocols/a2a/agent-card.ts';
import { protocolInputSchema, takesIdempotencyArgument } from '../../src/orchestrator/surface-keys.ts';
import { a2aClient, outcomeOf, runSkill, sendParts } from '../support/a2a.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { assertCreateTierWithRestrictions } from '../support/surfaces.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

test(`${verifies('CONTRACT-a2a-agent-card')}the public agent card lists the public and agent skills, with their input schemas, a bearer scheme and an extended card`, async () => {
  const res = await restClient(h.url).get('/.well-known/agent-card.json');
  assert.equal(res.status, 200);
  const card = res.body;
  assert.equal(card.name, 'Tessera');
  assert.deepEqual(card.supportedInterfaces, [
    { url: `${h.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: `${h.url}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ]);
  assert.equal(card.capabilities.streaming, false);
  assert.equal(card.capabilities.pushNotifications, false);
  assert.equal(card.capabilities.extendedAgentCard, true);
  assert.deepEqual(card.securitySchemes.bearer, {
    httpAuthSecurityScheme: {
      scheme: 'Bearer',
      description: card.securitySchemes.bearer.httpAuthSecurityScheme.description,
    },
  }); // no bearerFormat "JWT": API keys and agent tokens are opaque (issue #36, 2)
  assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: {} } }]);
  assert.deepEqual(card.defaultInputModes, ['application/json']);
  // Listed to an anonymous caller or an agent (auth.listed): sign-ins and ACP are not an agent's, discovery is.
  type Tool = (typeof h.app.orchestrator.tools)[number];
  const listedTo = (t: Tool, kind: string) => !t.auth.listed || t.auth.listed.includes(kind as never);
  const forAgent = (t: Tool) => !t.auth.public && t.auth.principals.includes('agent') && listedTo(t, 'agent');
  const tools = h.app.orchestrator.tools.filter((t) => (t.auth.public && listedTo(t, 'anonymous')) || forAgent(t));
  assert.ok(!tools.some((t) => t.name === 'create_checkout_session'));
  assert.deepEqual(
    card.skills.map((s: any) => s.id),
    tools.map((t) => t.name),
  );
  const size = Buffer.byteLength(JSON.stringify(card));
  // The aim: at most 30 KB. 31 public and agent skills (discovery, orders, check-in and ACP included) come to
  // about 29 KB, their media types left to the card's defaults.
  assert.ok(size <= 30 * 1024, `public card is ${size} bytes`);
  assert.deepEqual(card.defaultOutputModes, ['application/json']);
  assert.ok(card.skills.every((s: any) => s.inputModes === undefined && s.outputModes === undefined));
  // The JSON Schemas are on the extended card only (an agent's, here), which keeps the public card small; the public
  // card carries UCP's A2A extension alone (docs/ucp.md).
  assert.deepEqual(
    (card.capabilities.extensions ?? []).map((e: any) => e.uri),
    ['https://ucp.dev/2026-04-08/specification/reference'],
  );
  assert.ok(
    ['reserve', 'confirm', 'quote', 'purchase_initiate', 'get_event'].every((id) =>
      card.skills.some((s: any) => s.id === id),
    ),
  );
  const m = await h.merchant();
  const extended = AgentCard.toJSON(await (await a2aClient(h, m.apiKey)).getAgentCard()) as any;
  const schemas = extended.capabilities.extensions.find((e: any) => e.uri === SKILL_SCHEMAS_EXTENSION).params.skills;
  for (const tool of tools) {
    const skill = card.skills.find((s: any) => s.id === tool.name);
    assert.equal(skill.name, tool.title);
    assert.ok(skill.description.startsWith(tool.description), tool.name);
    assert.deepEqual(skill.tags, tool.annotations.readOnlyHint ? [tool.area, 'read-only'] : [tool.area]);
    if (schemas[tool.name]) {
      assert.deepEqual(schemas[tool.name].inputSchema, protocolInputSchema(tool), tool.name);
      assert.deepEqual(schemas[tool.name].outputSchema, toolOutputSchema(tool), tool.name);
    }
    const example = JSON.parse(skill.examples[0]);
    if (takesIdempotencyArgument(tool)) assert.match(skill.description, /idempotencyKey\?: string/);
    assert.equal(example.skill, tool.name);
    assert.deepEqual(Object.keys(example.input), toolInputSchema(tool).required ?? [], tool.name);
  }
  // The SDK client then asks for the extended card, which for a caller without a credential lists the public skills.
  const resolved = AgentCard.toJSON(await (await a2aClient(h)).getAgentCard()) as any;
  assert.deepEqual(
    resolved.skills.map((s: any) => s.id),
    h.app.orchestrator.tools.filter((t) => t.auth.public).map((t) => t.name),
  );
  assert.deepEqual(resolved.securitySchemes, card.securitySchemes);
});

test('the authenticated extended card lists the skills of the caller', async () => {
  const m = await h.merchant(['merchant:read']);
  // The SDK client fetches the extended card (GetExtendedAgentCard) because the public card announces one.
  const extended = await (await a2aClient(h, m.apiKey)).getAgentCard();
  const ids = extended.skills.map((s: { id: string }) => s.id);
  assert.ok(ids.includes('list_pools') && ids.includes('get_event'));
  assert.ok(
    !ids.includes('create_tier') && !ids.includes('reserve') && !ids.includes('create_checkout_session'),
    ids.join(),
  );
});

test('a skill that changes something answers with a completed task and a data artifact, read back by its caller', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const pool = await runSkill(client, 'create_pool', { merchantId: m.shopId, capacity: 40, title: 'Balcony' });
  assert.ok(pool.ok && pool.task, JSON.stringify(pool));
  assert.equal(pool.state, 'TASK_STATE_COMPLETED');
  assert.equal(pool.task.artifacts[0]?.name, 'create_pool');
  const again = outcomeOf(await client.getTask({ tenant: '', id: pool.task.id, historyLength: undefined }));
  assert.ok(again.ok);
  assert.deepEqual(again.output, pool.output);
});

test('a read-only skill answers with a message whose data part is the output, and stores no task', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const pool = await runSkill(client, 'create_pool', { merchantId: m.shopId, capacity: 40, title: 'Balcony' });
  assert.ok(pool.ok, JSON.stringify(pool));
  const tasksBefore = await h.db.execute('select count(*)::int as n from a2a_tasks');
  const list = await runSkill(client, 'list_pools', { merchantId: m.shopId });
  assert.ok(list.ok && list.reply, JSON.stringify(list));
  assert.deepEqual(
    [list.reply.metadata, list.reply.taskId, Role[list.reply.role]],
    [{ skill: 'list_pools' }, '', 'ROLE_AGENT'],
  );
  assert.deepEqual(
    list.output.pools.map((p: any) => [p.id, p.availableCount]),
    [[pool.output.id, 40]],
  );
  assert.deepEqual(await h.db.execute('select count(*)::int as n from a2a_tasks'), tasksBefore);
  // The card tags exactly those skills read-only; the other skills answer with tasks.
  const card = (await (await fetch(`${h.url}/.well-known/agent-card.json`)).json()) as {
    skills: { id: string; tags: string[] }[];
  };
  const tagged = card.skills.filter((s) => s.tags.includes('read-only')).map((s) => s.id);
  const readOnly = h.app.orchestrator.tools.filter((t) => t.annotations.readOnlyHint).map((t) => t.name);
  assert.deepEqual(
    tagged,
    card.skills.map((s) => s.id).filter((id) => readOnly.includes(id)),
  );
  assert.ok(tagged.includes('list_events') && !tagged.includes('quote') && !tagged.includes('reserve'), tagged.join());
  // A refusal of a read-only skill is still a task, in the state its error maps to.
  const refused = await runSkill(client, 'list_pools', { merchantId: 'shop_nope' });
  assert.ok(!refused.ok);
  assert.deepEqual([refused.state, refused.code], ['TASK_STATE_REJECTED', 'not_found']);
});

test('create_tier saves the tier and its restrictions', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  await assertCreateTierWithRestrictions((tool, input) => runSkill(client, tool, input), m.shopId);
});

test('an unknown input field ends input-required with unknown_field', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const r = await runSkill(client, 'create_tier', {
    eventId: 'evt_x',
    poolId: 'pool_x',
    name: 'A',
    priceMinor: 1,
    colour: 'red',
  });
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
  // On the same task, a read-only skill ends that task (completed, with its artifact) rather than answering a message.
  const fixed = outcomeOf(
    await sendParts(client, [{ data: { skill: 'list_pools', input: { merchantId: m.shopId } } }], bad.task.id),
  );
  assert.ok(fixed.ok && fixed.task, JSON.stringify(fixed));
  assert.deepEqual([fixed.task.id, fixed.state], [bad.task.id, 'TASK_STATE_COMPLETED']);
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

test("a text-only message gets a reply explaining how to call a skill, naming the caller's skills", async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const message = Message.fromJSON({
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts: [{ text: 'list my pools please' }],
  });
  const reply = await client.sendMessage({ tenant: '', configuration: undefined, metadata: undefined, message });
  assert.ok(!('status' in reply), 'a message, not a task');
  const text = reply.parts.find((p) => p.content?.$case === 'text')?.content;
  const data = reply.parts.find((p) => p.content?.$case === 'data')?.content;
  assert.ok(text?.$case === 'text' && data?.$case === 'data');
  assert.match(text.value, /data part \{"skill": "<skill id>", "input"/);
  assert.match(text.value, /quote → reserve → confirm/);
  const skills = (data.value as any).skills as string[];
  assert.ok(skills.includes('list_pools') && skills.includes('reserve') && !skills.includes('create_api_key'));
  assert.equal((data.value as any).example.skill, 'quote');
});

test('a message whose data part is not an object ends input-required, saying what to send', async () => {
  const m = await h.merchant();
  const r = outcomeOf(await sendParts(await a2aClient(h, m.apiKey), [{ data: ['list_pools'] }]));
  assert.ok(!r.ok);
  assert.deepEqual(
    [r.state, r.code, r.error.details],
    ['TASK_STATE_INPUT_REQUIRED', 'invalid_input', { field: 'parts' }],
  );
  assert.match(r.message, /must be a JSON object.*"skill"/);
});

test('an unknown skill or envelope field ends input-required', async () => {
  const m = await h.merchant();
  const client = await a2aClient(h, m.apiKey);
  const unknown = await runSkill(client, 'no_such_skill', {});
  assert.ok(!unknown.ok);
  assert.deepEqual(
    [unknown.state, unknown.code, unknown.error.details],
    ['TASK_STATE_INPUT_REQUIRED', 'invalid_input', { field: 'skill' }],
  );
  const extra = outcomeOf(await sendParts(client, [{ data: { skill: 'list_pools', input: {}, retries: 3 } }]));
  assert.ok(!extra.ok);
  assert.deepEqual(
    [extra.state, extra.code, extra.error.details.fields],
    ['TASK_STATE_INPUT_REQUIRED', 'unknown_field', ['retries']],
  );
});

test(`${verifies('CONTRACT-idempotency-argument')}an idempotency key in the data part replays the stored outcome`, async () => {
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

test('tasks are listed for their own credential only, newest first, in pages', async () => {
  const a = await h.merchant();
  const b = await h.merchant();
  const mine = await a2aClient(h, a.apiKey);
  const first = await runSkill(mine, 'create_event', {
    merchantId: a.shopId,
    title: 'Listed',
    startsAt: '2030-01-01T20:00:00Z',
  });
  h.clock.advance(1000);
  const second = await runSkill(mine, 'list_pools', {});
  await runSkill(mine, 'list_pools', { merchantId: a.shopId }); // a read answered with a message: no task to list
  assert.ok(first.task && second.task);
  const list = (pageToken = '') =>
    mine.listTasks({
      tenant: '',
      contextId: '',
      status: 0,
      pageSize: 1,
      pageToken,
      statusTimestampAfter: undefined,
      historyLength: undefined,
      includeArtifacts: true,
    });
  const page1 = await list();
  assert.deepEqual([page1.totalSize, page1.tasks.map((t) => t.id)], [2, [second.task.id]]);
  const page2 = await list(page1.nextPageToken);
  assert.deepEqual([page2.tasks.map((t) => t.id), page2.nextPageToken], [[first.task.id], '']);
  assert.ok(outcomeOf(page2.tasks[0]!).ok);
  const theirs = await a2aClient(h, b.apiKey);
  await assert.rejects(theirs.getTask({ tenant: '', id: first.task.id, historyLength: undefined }), /not found/i);
});
