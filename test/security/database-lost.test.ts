/**
 * A database lost mid-request (issue #10, finding 7) answers 503 `unavailable` with `Retry-After` on REST, MCP and A2A,
 * never a 500; once it is back the same server answers again (the pool reconnects). The database is lost through a TCP
 * proxy the test cuts, so the shared test PostgreSQL is never touched.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { ManualClock } from '../../src/kernel/clock.ts';
import { bootstrapOrganization, type BootstrapResult } from '../../src/domain/merchants/merchants.ts';
import { Database } from '../../src/storage/database.ts';
import { serverEnvFor, createTestDatabase } from '../support/database.ts';
import { restClient } from '../support/rest.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

let proxy: TcpProxy;
let db: Database;
let app: App;
let url: string;
let m: BootstrapResult;
const clock = new ManualClock(new Date());

before(async () => {
  proxy = await startTcpProxy(await createTestDatabase());
  db = await Database.open(proxy.url);
  await db.migrate();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ...serverEnvFor(proxy.url),
    WEBHOOK_DISPATCH_MS: '0',
    SWEEP_INTERVAL_MS: '0',
  });
  app = await createApp(config, db, { clock, log: pino({ level: 'silent' }) });
  app.koa.middleware.unshift(async (ctx, next) => {
    ctx.set('connection', 'close');
    await next();
  });
  url = await app.listen();
  m = await db.transaction((em) =>
    bootstrapOrganization(
      em,
      {
        organization: 'Lost',
        email: 'lost@example.test',
        shop: 'Lost Shop',
        scopes: ['merchant:read', 'merchant:write'],
      },
      clock.now(),
    ),
  );
});
after(async () => {
  await app?.close();
  await db?.close();
  await proxy?.close();
});

const mcpCall = (token: string, name: string, args: Record<string, unknown>) =>
  restClient(url, token).post(
    '/mcp',
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
  );
const a2aCall = (token: string, skill: string, input: Record<string, unknown>) =>
  restClient(url, token).post(
    '/a2a/jsonrpc',
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'SendMessage',
      params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill, input } }] } },
    },
    { 'a2a-version': '1.0' },
  );
const createEvent = (i: number) =>
  restClient(url, m.apiKey).post(
    '/v1/integration/events',
    { merchantId: m.shopId, title: `Gig ${i}`, startsAt: '2030-05-01T19:00:00Z' },
    { 'idempotency-key': randomUUID() },
  );

test('while the database is lost every surface answers 503 unavailable with Retry-After, and the same server recovers', async () => {
  assert.equal((await createEvent(0)).status, 201);
  // Lost mid-request: requests in flight when the connections drop.
  const inFlight = Array.from({ length: 12 }, (_, i) => createEvent(i + 1));
  await new Promise((ok) => setImmediate(ok));
  proxy.cut();
  for (const res of await Promise.all(inFlight)) {
    assert.ok(res.status === 201 || res.status === 503, `${res.status} ${JSON.stringify(res.body)}`);
    if (res.status === 503) {
      assert.equal(res.body.code, 'unavailable');
      assert.ok(Number(res.headers.get('retry-after')) > 0);
    }
  }
  // Lost between requests.
  const rest = await createEvent(99);
  assert.equal(rest.status, 503, JSON.stringify(rest.body));
  assert.deepEqual(Object.keys(rest.body).sort(), ['code', 'message', 'retryAfter']);
  assert.equal(rest.body.code, 'unavailable');
  assert.ok(Number(rest.headers.get('retry-after')) > 0);
  const anonymous = await restClient(url).get('/v1/discovery/shops');
  assert.equal(anonymous.status, 503, JSON.stringify(anonymous.body));
  // MCP and A2A: the tool's refusal inside the protocol's answer, or, when the protocol's own bookkeeping needs the
  // database first (A2A's task store), the same HTTP 503 as REST.
  const mcp = await mcpCall(m.apiKey, 'list_events', { id: m.shopId });
  const a2a = await a2aCall(m.apiKey, 'list_events', { id: m.shopId });
  for (const [name, res] of [
    ['mcp', mcp],
    ['a2a', a2a],
  ] as const) {
    assert.ok(res.status < 500 || res.status === 503, `${name} ${res.status} ${JSON.stringify(res.body)}`);
    assert.match(JSON.stringify(res.body), /unavailable/, name);
    if (res.status === 503) assert.ok(Number(res.headers.get('retry-after')) > 0, name);
  }
  assert.doesNotMatch(
    JSON.stringify([rest.body, anonymous.body, mcp.body, a2a.body]),
    /ECONN|terminated|127\.0\.0\.1|internal_error/,
  );

  proxy.restore();
  // The pool reconnects by itself: the same server answers again (bounded retries, not a timer).
  let back = await createEvent(100);
  for (let i = 0; i < 20 && back.status === 503; i++) back = await createEvent(100 + i);
  assert.equal(back.status, 201, JSON.stringify(back.body));
  const listed = await mcpCall(m.apiKey, 'list_events', { id: m.shopId });
  assert.doesNotMatch(JSON.stringify(listed.body), /isError":true/);
});
