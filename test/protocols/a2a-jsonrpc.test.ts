/**
 * The A2A JSON-RPC endpoint itself: malformed and unsupported requests, size and version limits, the card's
 * caching and v0.3 peers (a2a.test.ts has the card and the skills).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Message, taskStateToJSON } from '@a2a-js/sdk';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { outcomeOf } from '../support/a2a.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
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
