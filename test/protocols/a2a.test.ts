/**
 * The A2A projection: the agent card generated from the registry, and tool calls over JSON-RPC through the SDK client.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AgentCard, Message, Role, taskStateToJSON } from '@a2a-js/sdk';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
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

test('malformed JSON is JSON-RPC -32700 Parse error', async () => {
  const res = await fetch(`${h.url}/a2a/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
    body: '{"jsonrpc":"2.0","id":1,"method":',
  });
  const body = (await res.json()) as any;
  assert.deepEqual([body.id, body.error.code], [null, -32700]);
});

test('JSON that is not a JSON-RPC request object is -32600 Invalid Request, with nothing internal', async () => {
  const m = await h.merchant();
  const getTask = '"method":"GetTask","params":{"id":"x"}';
  const bodies = [
    'null',
    '[]',
    '[1]',
    `[{"jsonrpc":"2.0","id":1,${getTask}}]`,
    '0',
    '42',
    '"text"',
    'true',
    '{}',
    '{"id":7}',
    '{"jsonrpc":"2.0","id":7}',
    `{"jsonrpc":"1.0","id":7,${getTask}}`,
    '{"jsonrpc":"2.0","id":7,"method":5}',
    `{"jsonrpc":"2.0","id":{},${getTask}}`,
  ];
  for (const token of [undefined, m.apiKey]) {
    for (const text of bodies) {
      const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      const res = await fetch(`${h.url}/a2a/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...auth },
        body: text,
      });
      const raw = await res.text();
      const body = JSON.parse(raw);
      const id = (JSON.parse(text) as { id?: unknown } | null)?.id;
      assert.equal(res.status, 200, `${text}: ${raw}`);
      const echoed = typeof id === 'number' ? id : null;
      assert.deepEqual([body.jsonrpc, body.id, body.error?.code], ['2.0', echoed, -32600], `${text}: ${raw}`);
      assert.match(body.error.message, /^Invalid Request/, `${text}: ${raw}`);
      assert.doesNotMatch(raw, /TypeError|Cannot read|undefined|null \(reading|at \w+ \(|\.ts:/, `${text}: ${raw}`);
    }
  }
});

test('issue #36: a method the A2A version spoken does not have is -32601 Method not found, with or without params', async () => {
  const m = await h.merchant();
  const cases: [Record<string, string>, string][] = [
    [{ 'a2a-version': '1.0' }, 'NoSuchMethod'],
    [{ 'a2a-version': '1.0' }, 'message/send'], // a v0.3 name spoken as v1.0
    [{}, 'tasks/list'], // v0.3 has no tasks/list
    [{}, 'GetTask'], // a v1.0 name spoken as v0.3
  ];
  for (const [headers, method] of cases) {
    for (const params of [undefined, {}]) {
      const rpc = { jsonrpc: '2.0', id: 9, method, ...(params && { params }) };
      const res = await restClient(h.url, m.apiKey).post('/a2a/jsonrpc', rpc, headers);
      const what = `${method} ${JSON.stringify(headers)} ${JSON.stringify(res.body)}`;
      assert.equal(res.status, 200, what);
      assert.deepEqual([res.body.id, res.body.error?.code], [9, -32601], what);
      assert.match(res.body.error.message, /^Method not found/, what);
    }
  }
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

test('a JSON-RPC body over 1 MiB is refused with 413', async () => {
  const res = await restClient(h.url).post('/a2a/jsonrpc', JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }), {
    'a2a-version': '1.0',
  });
  assert.equal(res.status, 413);
  assert.equal(res.body.code, 'payload_too_large');
});

test('the JSON-RPC endpoint refuses an unsupported A2A-Version and streaming', async () => {
  const rpc = { jsonrpc: '2.0', id: 7, method: 'GetTask', params: { id: 'x' } };
  const res = await restClient(h.url).post('/a2a/jsonrpc', rpc, { 'a2a-version': '2.0' });
  assert.equal(res.status, 200);
  assert.equal(res.body.id, 7);
  assert.equal(res.body.error.code, -32009);
  const streaming = await restClient(h.url).post(
    '/a2a/jsonrpc',
    {
      jsonrpc: '2.0',
      id: 8,
      method: 'SendStreamingMessage',
      params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } },
    },
    { 'a2a-version': '1.0' },
  );
  assert.equal(streaming.body.id, 8);
  assert.equal(streaming.body.error?.code, -32004, JSON.stringify(streaming.body));
});

test('issue #36 (2): the agent card is cacheable, with an ETag, and a matching If-None-Match is 304', async () => {
  const first = await fetch(`${h.url}/.well-known/agent-card.json`);
  assert.equal(first.status, 200);
  const etag = first.headers.get('etag');
  assert.match(String(etag), /^"[\w-]+"$/);
  assert.equal(first.headers.get('cache-control'), 'public, max-age=300');
  await first.json();
  const again = await fetch(`${h.url}/.well-known/agent-card.json`, { headers: { 'if-none-match': etag! } });
  assert.deepEqual([again.status, await again.text(), again.headers.get('etag')], [304, '', etag]);
  const stale = await fetch(`${h.url}/.well-known/agent-card.json`, { headers: { 'if-none-match': '"other"' } });
  assert.equal(stale.status, 200);
  assert.equal((await stale.json()).name, 'Tessera');
});

test('issue #36 (2): a message part of an unsupported media type is -32005 ContentTypeNotSupported, not a task', async () => {
  const m = await h.merchant();
  const send = async (parts: unknown[]) => {
    const res = await restClient(h.url, m.apiKey).post(
      '/a2a/jsonrpc',
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'SendMessage',
        params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts } },
      },
      { 'a2a-version': '1.0' },
    );
    assert.equal(res.status, 200);
    return res.body;
  };
  const call = { skill: 'list_pools', input: { merchantId: m.shopId } };
  for (const parts of [
    [{ data: call, mediaType: 'application/xml' }],
    [{ raw: Buffer.from('%PDF').toString('base64'), mediaType: 'application/pdf', filename: 'a.pdf' }],
    [{ url: 'https://example.com/a.png', mediaType: 'image/png' }],
    [{ data: call }, { text: 'hi', mediaType: 'text/html' }],
  ]) {
    const body = await send(parts);
    assert.deepEqual([body.id, body.error?.code], [3, -32005], JSON.stringify(body));
    assert.equal(body.result, undefined);
  }
  // JSON and text parts (with or without a media type, with parameters) are still read.
  const ok = await send([{ data: call, mediaType: 'application/json; charset=utf-8' }]);
  assert.equal(ok.error, undefined, JSON.stringify(ok));
});

test("issue #36 (2): A2A v0.3 peers are served too: the SDK's legacy transport, and v0.3 JSON-RPC without A2A-Version", async () => {
  const m = await h.merchant();
  const withBearer: typeof fetch = (url, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${m.apiKey}`);
    return fetch(url, { ...init, headers });
  };
  const legacy = new LegacyJsonRpcTransport({ endpoint: `${h.url}/a2a/jsonrpc`, fetchImpl: withBearer });
  const message = Message.fromJSON({
    messageId: crypto.randomUUID(),
    role: 'ROLE_USER',
    parts: [
      {
        data: {
          skill: 'create_event',
          input: { merchantId: m.shopId, title: 'Old peer', startsAt: '2030-01-01T20:00:00Z' },
        },
      },
    ],
  });
  const answer = await legacy.sendMessage({ tenant: '', configuration: undefined, metadata: undefined, message });
  const outcome = outcomeOf(answer as any);
  assert.ok(outcome.ok, JSON.stringify(answer));
  assert.match(outcome.output.id, /^evt_/);
  const task = await legacy.getTask({ tenant: '', id: (answer as any).id, historyLength: undefined });
  assert.equal(taskStateToJSON(task.status!.state), 'TASK_STATE_COMPLETED');
  // The v0.3 wire itself, as an older peer sends it: no A2A-Version header, v0.3 method names and part kinds.
  const raw = await restClient(h.url, m.apiKey).post('/a2a/jsonrpc', {
    jsonrpc: '2.0',
    id: 5,
    method: 'message/send',
    params: {
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'data', data: { skill: 'list_pools', input: { merchantId: m.shopId } } }],
      },
    },
  });
  assert.equal(raw.body.id, 5, JSON.stringify(raw.body));
  assert.equal(raw.body.error, undefined, JSON.stringify(raw.body));
  assert.equal(raw.body.result.kind, 'message');
  assert.deepEqual(raw.body.result.parts[0].data, { pools: [] });
  const file = await restClient(h.url, m.apiKey).post('/a2a/jsonrpc', {
    jsonrpc: '2.0',
    id: 6,
    method: 'message/send',
    params: {
      message: {
        kind: 'message',
        messageId: crypto.randomUUID(),
        role: 'user',
        parts: [{ kind: 'file', file: { uri: 'https://example.com/a.png', mimeType: 'image/png' } }],
      },
    },
  });
  assert.deepEqual([file.body.id, file.body.error?.code], [6, -32005], JSON.stringify(file.body));
});
