/**
 * Operators' view: one structured JSON line per HTTP request (request id, route label, status, duration, principal
 * kind), never the credential, the raw URL's ids or its query; probes only at debug.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.ts';
import { must, shopWithTier } from '../support/spine.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { callTool, mcpHttp } from '../support/mcp.ts';
import { a2aClient, outcomeOf, sendAny } from '../support/a2a.ts';

/** Every line the server logs at `info` and above, through the service's own logger. */
const logLines: string[] = [];
const logSink = new Writable({
  write(chunk: Buffer, _enc, done) {
    logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

let h: Harness;
before(async () => {
  h = await startHarness(
    { SWEEP_INTERVAL_MS: '0', SANDBOX_DISPATCH_MS: '0', WEBHOOK_DISPATCH_MS: '0', RATE_LIMIT_PER_MINUTE: '100000' },
    { log: createLogger('info', logSink) },
  );
});
after(async () => {
  await h?.close();
});

/** The parsed log lines whose `requestId` is `id`. */
const linesOf = (id: string) =>
  logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.requestId === id);

test('one REST request writes exactly one JSON request line: id, route label, status, duration, principal kind', async () => {
  const s = await shopWithTier(h);
  const res = await restClient(h.url, s.apiKey).get(`/v1/catalog/events/${s.eventId}`);
  must(res, 200);
  const id = res.headers.get('x-request-id');
  assert.ok(id, 'the response carries X-Request-Id');
  const lines = linesOf(id);
  assert.equal(lines.length, 1, `one line for the request: ${JSON.stringify(lines)}`);
  const line = lines[0]!;
  assert.equal(line.msg, 'request');
  assert.equal(line.level, 30, 'at info');
  assert.equal(line.method, 'GET');
  assert.equal(line.route, '/v1/catalog/events/:id', 'the route pattern, not the URL');
  assert.equal(line.status, 200);
  assert.equal(typeof line.durationMs, 'number');
  assert.ok((line.durationMs as number) >= 0);
  assert.equal(line.principal, 'api_key');
  const raw = JSON.stringify(line);
  for (const leak of [s.apiKey, s.eventId, 'authorization'])
    assert.ok(!raw.includes(leak), `the line holds no ${leak}`);
  assert.ok(!logLines.join('\n').includes(s.apiKey), 'no line holds the API key');
});

test("a caller's plain X-Request-Id is kept and echoed; a refused request is logged with its status", async () => {
  const res = await restClient(h.url, 'not-a-real-key').get('/v1/integration/pools?merchantId=shop_x', {
    'x-request-id': 'trace-123',
  });
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('x-request-id'), 'trace-123');
  const lines = linesOf('trace-123');
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.status, 401);
  assert.equal(lines[0]!.route, '/v1/integration/pools');
  assert.ok(!JSON.stringify(lines[0]).includes('shop_x'), 'no query string');
  assert.equal(lines[0]!.principal, undefined, 'no principal when none was authenticated');
  assert.ok(!logLines.join('\n').includes('not-a-real-key'));

  const odd = await restClient(h.url).get('/v1/catalog/shops', { 'x-request-id': 'two words' });
  const fresh = odd.headers.get('x-request-id');
  assert.ok(fresh && fresh !== 'two words', 'an id with spaces is replaced by a new one');
  assert.equal(linesOf(fresh).length, 1);
});

test('health, readiness and metrics probes write no info line', async () => {
  for (const path of ['/healthz', '/readyz', '/metrics']) {
    const res = await restClient(h.url).get(path);
    const id = res.headers.get('x-request-id');
    assert.ok(id, `${path} carries X-Request-Id`);
    assert.equal(linesOf(id).length, 0, `${path} is logged at debug only`);
  }
});

test('MCP and A2A request lines name the principal kind too', async () => {
  const s = await shopWithTier(h);
  const mcp = await mcpHttp(h, s.apiKey, { 'x-request-id': 'mcp-principal-kind' });
  const called = await callTool(mcp, 'get_event', { id: s.eventId });
  assert.ok(called.ok);
  await mcp.close();
  const mcpLines = linesOf('mcp-principal-kind').filter((l) => l.method === 'POST');
  assert.ok(mcpLines.length >= 2, `initialize, tools/list and the call: ${JSON.stringify(mcpLines)}`);
  for (const line of mcpLines) assert.deepEqual([line.route, line.principal], ['/mcp', 'api_key']);

  const a2a = await a2aClient(h, s.apiKey);
  const answer = outcomeOf(await sendAny(a2a, [{ data: { skill: 'get_event', input: { id: s.eventId } } }]));
  assert.ok(answer.ok);
  const a2aLines = logLines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'request' && l.method === 'POST' && String(l.route).startsWith('/a2a'));
  assert.ok(a2aLines.length >= 1);
  for (const line of a2aLines) assert.equal(line.principal, 'api_key');
  assert.ok(!logLines.join('\n').includes(s.apiKey), 'no line holds the API key');
});
