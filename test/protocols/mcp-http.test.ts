/** The `/mcp` HTTP endpoint itself: Host and Origin allow-lists, methods, statelessness. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { holdRows, poll } from '../support/row-lock.ts';
import { verifies } from '../support/requirements.ts';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

let h: Harness;
let apiKey: string;
before(async () => {
  h = await startHarness();
  apiKey = (await h.merchant()).apiKey;
});
after(async () => {
  await h?.close();
});

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});

/** A raw request to /mcp (node:http, so the Host header can be forged). */
function raw(
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  const url = new URL('/mcp', h.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${apiKey}`,
          ...headers,
        },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data ? JSON.parse(data) : undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test(`${verifies('CONTRACT-mcp-transports')}an initialize POST with the server host succeeds without a session id`, async () => {
  const r = await raw('POST', {}, INIT);
  assert.equal(r.status, 200);
  assert.equal(r.body.result.serverInfo.name, 'tessera');
  assert.equal(r.headers['mcp-session-id'], undefined);
});

test('without a bearer, or with an unknown one, /mcp answers 401 naming its protected-resource metadata', async () => {
  for (const authorization of ['', 'Bearer tsk_unknown']) {
    const r = await raw('POST', { authorization }, INIT);
    assert.equal(r.status, 401);
    assert.equal(r.body.error.code, -32000);
    assert.match(
      String(r.headers['www-authenticate']),
      new RegExp(`^Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource/mcp"`),
    );
    assert.match(String(r.headers['www-authenticate']), /, scope="tessera:agent"/);
  }
});

test('localhost with the listening port is an allowed Host', async () => {
  const r = await raw('POST', { host: `localhost:${new URL(h.url).port}` }, INIT);
  assert.equal(r.status, 200);
});

test('an unknown Host header is refused with 403', async () => {
  const r = await raw('POST', { host: 'evil.example:80' }, INIT);
  assert.equal(r.status, 403);
  assert.equal(r.body.error.code, -32000);
  assert.match(r.body.error.message, /Invalid Host header/);
});

test('a foreign Origin is refused with 403 and the public origin is accepted', async () => {
  const bad = await raw('POST', { origin: 'http://evil.example' }, INIT);
  assert.equal(bad.status, 403);
  assert.match(bad.body.error.message, /Invalid Origin header/);
  const good = await raw('POST', { origin: new URL(h.url).origin }, INIT);
  assert.equal(good.status, 200);
});

test('GET and DELETE on /mcp answer 405 with a JSON-RPC error', async () => {
  for (const method of ['GET', 'DELETE']) {
    const r = await raw(method);
    assert.equal(r.status, 405, method);
    assert.equal(r.headers.allow, 'POST');
    assert.equal(r.body.jsonrpc, '2.0');
    assert.equal(r.body.error.code, -32000);
  }
});

test('a tools/call without initialize works (stateless) and reports errors as results', async () => {
  const m = await h.merchant(['merchant:write']);
  const call = JSON.stringify({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'list_pools', arguments: { merchantId: m.shopId } },
  });
  const r = await raw('POST', { authorization: `Bearer ${m.apiKey}`, 'mcp-protocol-version': '2025-06-18' }, call);
  assert.equal(r.status, 200);
  assert.equal(r.body.result.isError, true);
  assert.match(r.body.result.content[0].text, /^insufficient_scope: /);
  assert.equal(JSON.parse(r.body.result.content[1].text).code, 'insufficient_scope');
  assert.equal(r.body.result.structuredContent, undefined);
});

test('a notification is answered 202 with no body; a POST not accepting both JSON and SSE is 406', async () => {
  const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const r = await raw('POST', { 'mcp-protocol-version': '2025-06-18' }, note);
  assert.deepEqual([r.status, r.body, r.headers['content-type']], [202, undefined, undefined]);
  const call = JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
  const refused = await raw('POST', { accept: 'application/json', 'mcp-protocol-version': '2025-06-18' }, call);
  assert.equal(refused.status, 406);
  assert.match(refused.body.error.message, /^Not Acceptable/);
  // The rest of the transport's rules, as the SDK's transport words them.
  const text = await raw('POST', { 'content-type': 'text/plain', 'mcp-protocol-version': '2025-06-18' }, call);
  assert.deepEqual([text.status, text.body.error.code], [415, -32000]);
  assert.match(text.body.error.message, /^Unsupported Media Type/);
  const version = await raw('POST', { 'mcp-protocol-version': '1999-01-01' }, call);
  assert.deepEqual([version.status, version.body.error.code], [400, -32000]);
  assert.match(version.body.error.message, /Unsupported protocol version: 1999-01-01/);
  const initialize = await raw('POST', { 'mcp-protocol-version': '1999-01-01' }, INIT); // initialize negotiates it in its body
  assert.equal(initialize.status, 200);
  const notRpc = await raw('POST', { 'mcp-protocol-version': '2025-06-18' }, JSON.stringify({ hello: 'world' }));
  assert.deepEqual([notRpc.status, notRpc.body.error.code], [400, -32600]);
});

test('valid JSON that is not JSON-RPC is -32600 with its id; not JSON is -32700; a version refusal names the id', async () => {
  const headers = { 'mcp-protocol-version': '2025-06-18' };
  const notRpc = await raw('POST', headers, JSON.stringify({ foo: 1, id: 7 }));
  assert.deepEqual([notRpc.status, notRpc.body.error.code, notRpc.body.id], [400, -32600, 7]);
  const badJsonrpc = await raw('POST', headers, JSON.stringify({ jsonrpc: '1.0', id: 'a', method: 'tools/list' }));
  assert.deepEqual([badJsonrpc.status, badJsonrpc.body.error.code, badJsonrpc.body.id], [400, -32600, 'a']);
  const notJson = await raw('POST', headers, '{"jsonrpc":');
  assert.deepEqual([notJson.status, notJson.body.error.code, notJson.body.id], [400, -32700, null]);
  const call = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
  const version = await raw('POST', { 'mcp-protocol-version': '1999-01-01' }, call);
  assert.deepEqual([version.status, version.body.id], [400, 9]);
});

test('initialize offers the newest protocol version the SDK supports', async () => {
  const ask = (protocolVersion: string) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
  assert.equal((await raw('POST', {}, ask('2099-01-01'))).body.result.protocolVersion, LATEST_PROTOCOL_VERSION);
  assert.equal((await raw('POST', {}, ask('2025-11-25'))).body.result.protocolVersion, '2025-11-25');
});

/** The count /metrics gives for POST /mcp answered with `status`. */
async function mcpCount(status: number): Promise<number> {
  const text = await (await fetch(`${h.url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`tessera_http_requests_total{method="POST",route="/mcp",status="${status}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

test('a client that leaves before its answer: the request ends at once (counted 499), and the call still commits', async () => {
  const m = await h.merchant(['merchant:read', 'merchant:write']);
  const api = restClient(h.url, m.apiKey);
  const event = (
    await api.post('/v1/integration/events', { merchantId: m.shopId, title: 'Left', startsAt: '2030-01-01T20:00:00Z' })
  ).body;
  const pool = (await api.post('/v1/integration/pools', { merchantId: m.shopId, eventId: event.id, capacity: 10 }))
    .body;
  const before = await mcpCount(499);
  // Hold the pool's row from outside, so update_pool waits on it while its client goes away.
  const holder = await holdRows(h.dbUrl, 'select id from pools where id = $1 for update', [pool.id]);
  const url = new URL('/mcp', h.url);
  const call = JSON.stringify({
    jsonrpc: '2.0',
    id: 4,
    method: 'tools/call',
    params: { name: 'update_pool', arguments: { id: pool.id, capacity: 12 } },
  });
  try {
    const req = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${m.apiKey}`,
        'mcp-protocol-version': '2025-06-18',
      },
    });
    req.on('error', () => undefined); // the socket is destroyed below
    req.end(call);
    assert.ok((await poll(holder.waiters)) > 0, 'update_pool waits on the held row');
    req.destroy();
    const counted = await poll(async () => (await mcpCount(499)) > before, 2000);
    assert.ok(counted, 'the request ended (counted 499) while its call still waited');
    await holder.release();
  } finally {
    await holder.end();
  }
  // The call itself was not undone: like a lost REST answer, it commits, and repeating it is safe.
  const capacity = async () =>
    (await api.get(`/v1/integration/pools?merchantId=${m.shopId}`)).body.pools[0].capacity as number;
  await poll(async () => (await capacity()) === 12, 2000);
  assert.equal(await capacity(), 12);
});

test(
  'one server answers every POST: two callers sending the same request id each get their own answer, and no notification reaches another caller',
  { timeout: 120_000 },
  async () => {
    // Internal request ids count from 1 per server, so a fresh one makes the sweep of ids below cover every call of
    // this test.
    const own = await startHarness();
    try {
      const [a, b] = [
        await own.merchant(['merchant:read', 'merchant:write']),
        await own.merchant(['merchant:read', 'merchant:write']),
      ];
      const post = (key: string, body: unknown) =>
        fetch(`${own.url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${key}`,
            'mcp-protocol-version': '2025-06-18',
          },
          body: JSON.stringify(body),
        });
      const apiB = restClient(own.url, b.apiKey);
      const event = (
        await apiB.post('/v1/integration/events', {
          merchantId: b.shopId,
          title: 'Held',
          startsAt: '2030-01-01T20:00:00Z',
        })
      ).body;
      const pool = (await apiB.post('/v1/integration/pools', { merchantId: b.shopId, eventId: event.id, capacity: 10 }))
        .body;
      const holder = await holdRows(own.dbUrl, 'select id from pools where id = $1 for update', [pool.id]);
      try {
        // B's call waits on the held row while A calls with the same JSON-RPC id and sweeps cancellations over ids.
        const blocked = post(b.apiKey, {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'update_pool', arguments: { id: pool.id, capacity: 12 } },
        });
        blocked.catch(() => undefined); // awaited below; if an assertion fails first, its failure is not also unhandled
        assert.ok((await poll(holder.waiters)) > 0, "B's call waits on the held row");
        const mine = await post(a.apiKey, {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_pools', arguments: { merchantId: a.shopId } },
        });
        assert.equal(mine.status, 200);
        assert.deepEqual(await mine.json(), {
          jsonrpc: '2.0',
          id: 1,
          result: { structuredContent: { pools: [] }, content: [{ type: 'text', text: '{"pools":[]}' }] },
        });
        for (let id = 1; id <= 50; id++) {
          const cancel = await post(a.apiKey, {
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason: 'not yours' },
          });
          assert.equal(cancel.status, 202);
        }
        await holder.release();
        const answered = await blocked;
        assert.equal(answered.status, 200);
        const body = await answered.json();
        assert.equal(body.id, 1);
        assert.equal(body.result.isError, undefined, JSON.stringify(body));
        assert.equal(body.result.structuredContent.capacity, 12);
      } finally {
        await holder.end();
      }
    } finally {
      await own.close();
    }
  },
);
