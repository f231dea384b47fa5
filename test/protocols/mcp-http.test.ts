/** The `/mcp` HTTP endpoint itself: Host and Origin allow-lists, methods, statelessness. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { startHarness, type Harness } from '../support/harness.ts';

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
function raw(method: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  const url = new URL('/mcp', h.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${apiKey}`, ...headers },
      },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (data += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data ? JSON.parse(data) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('an initialize POST with the server host succeeds without a session id', async () => {
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
    assert.match(String(r.headers['www-authenticate']), new RegExp(`^Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource/mcp"`));
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
  const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_pools', arguments: { merchantId: m.shopId } } });
  const r = await raw('POST', { authorization: `Bearer ${m.apiKey}`, 'mcp-protocol-version': '2025-06-18' }, call);
  assert.equal(r.status, 200);
  assert.equal(r.body.result.isError, true);
  assert.match(r.body.result.content[0].text, /^insufficient_scope: /);
  assert.equal(JSON.parse(r.body.result.content[1].text).code, 'insufficient_scope');
  assert.equal(r.body.result.structuredContent, undefined);
});
