/**
 * Abuse: the rate limit (issue #10, finding 3). Unauthenticated and failed requests count against the client address,
 * authenticated ones against the principal; the counters live in PostgreSQL, shared by every server process; health
 * checks are never limited; sign-in, code and token endpoints have a stricter budget. Over it: 429 `rate_limited` with
 * `retryAfter` and a matching `Retry-After` header.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { startHarness } from '../support/harness.ts';
import { restClient, type RestResponse } from '../support/rest.ts';
import { holdRows, poll } from '../support/row-lock.ts';
import { serverEnvFor } from '../support/database.ts';
import { assertInvariant } from '../support/invariant.ts';

const LIMITS = {
  RATE_LIMIT_PER_MINUTE: '20',
  RATE_LIMIT_STRICT_PER_MINUTE: '5',
  SWEEP_INTERVAL_MS: '0',
  WEBHOOK_DISPATCH_MS: '0',
  SANDBOX_DISPATCH_MS: '0',
};

function assertLimited(res: RestResponse) {
  assert.equal(res.status, 429, JSON.stringify(res.body));
  assert.equal(res.body.code, 'rate_limited');
  assert.equal(typeof res.body.message, 'string');
  assert.ok(Number.isInteger(res.body.retryAfter) && res.body.retryAfter >= 1);
  assert.equal(res.headers.get('retry-after'), String(res.body.retryAfter));
}

/** An event, a pool of 50 and a tier in the shop: three requests, spent from the key's budget. */
async function tierOnSale(api: ReturnType<typeof restClient>, shopId: string, title: string) {
  const event = (
    await api.post('/v1/integration/events', { merchantId: shopId, title, startsAt: '2030-01-01T20:00:00Z' })
  ).body;
  const pool = (await api.post('/v1/integration/pools', { merchantId: shopId, eventId: event.id, capacity: 50 })).body;
  const tier = (
    await api.post('/v1/integration/tiers', { eventId: event.id, poolId: pool.id, name: 'GA', priceMinor: 1000 })
  ).body;
  return { pool, tier };
}

test('requests with junk bearers are counted against the client address, and refused past its budget', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const statuses: number[] = [];
  for (let i = 0; i < 24; i++) {
    const res = await restClient(h.url, `junk-${crypto.randomUUID()}`).get('/v1/catalog/shops/shop_x');
    statuses.push(res.status);
    if (i === 23) assertLimited(res);
  }
  assert.ok(
    statuses.slice(0, 20).every((s) => s === 401),
    statuses.join(','),
  );
  // The health checks are never limited; an anonymous request from the same address is.
  assert.equal((await restClient(h.url).get('/healthz')).status, 200);
  assert.equal((await restClient(h.url).get('/readyz')).status, 200);
  assertLimited(await restClient(h.url).get('/v1/catalog/shops/shop_x'));
});

test('an authenticated principal has its own budget, whatever address it calls from', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const a = await h.merchant();
  const b = await h.merchant();
  for (let i = 0; i < 20; i++)
    assert.equal((await restClient(h.url, a.apiKey).get(`/v1/integration/pools?merchantId=${a.shopId}`)).status, 200);
  assertLimited(await restClient(h.url, a.apiKey).get(`/v1/integration/pools?merchantId=${a.shopId}`));
  // Another principal at the same address is not affected, nor is an anonymous caller.
  assert.equal((await restClient(h.url, b.apiKey).get(`/v1/integration/pools?merchantId=${b.shopId}`)).status, 200);
  assert.equal((await restClient(h.url).get('/v1/catalog/shops/shop_x')).status, 401);
});

test('concurrent requests of one principal, charged together, are served exactly up to the budget', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const a = await h.merchant();
  // 30 at once on a budget of 20: the charges that wait for the counter's statement are charged by the next one
  // together.
  const all = await Promise.all(
    Array.from({ length: 30 }, () => restClient(h.url, a.apiKey).get(`/v1/integration/pools?merchantId=${a.shopId}`)),
  );
  assert.equal(all.filter((r) => r.status === 200).length, 20, JSON.stringify(all.map((r) => r.status)));
  for (const r of all.filter((x) => x.status !== 200)) assertLimited(r);
  assertLimited(await restClient(h.url, a.apiKey).get(`/v1/integration/pools?merchantId=${a.shopId}`));
});

test('concurrent reserves past the budget: each refused one is 429, holds nothing and gives its idempotency key up', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const a = await h.merchant();
  const api = restClient(h.url, a.apiKey);
  const { pool, tier } = await tierOnSale(api, a.shopId, 'Budget night');
  const quotes: string[] = [];
  for (let i = 0; i < 12; i++)
    quotes.push((await api.post('/v1/ticketing/quotes', { tierId: tier.id, quantity: 1 })).body.quoteId);
  // 15 of the 20 points are spent; 12 reserves at once: the rate charge runs beside the reserve batch, which waits for
  // it before writing, so exactly 5 hold a place and 7 are refused with nothing written for them.
  const keys = quotes.map(() => crypto.randomUUID());
  const all = await Promise.all(
    quotes.map((quoteId, i) => api.post('/v1/ticketing/reservations', { quoteId }, { 'idempotency-key': keys[i]! })),
  );
  const held = all.flatMap((r, i) => (r.status === 201 ? [i] : []));
  assert.equal(held.length, 5, JSON.stringify(all.map((r) => r.status)));
  for (const r of all.filter((x) => x.status !== 201)) assertLimited(r);
  const counts = await assertInvariant(h.db, pool.id);
  assert.equal(counts.held, 5);
  const rows = await h.db.execute<{ key: string; state: string }>(
    'select key, state from idempotency_keys where key in (?)',
    [keys],
  );
  assert.deepEqual(
    rows.map((r) => r.key).sort(),
    held.map((i) => keys[i]!).sort(),
    'only the admitted calls keep their keys',
  );
  assert.ok(rows.every((r) => r.state === 'done'));
});

test('two server processes share one budget through PostgreSQL', async (t) => {
  const h = await startHarness(LIMITS);
  const other = await createApp(
    loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...serverEnvFor(h.dbUrl), ...LIMITS }),
    h.db,
    {
      clock: h.clock,
      log: pino({ level: 'silent' }),
    },
  );
  const otherUrl = await other.listen();
  t.after(async () => {
    await other.close();
    await h.close();
  });
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) {
    statuses.push((await restClient(h.url).get('/v1/catalog/shops/shop_x')).status);
    statuses.push((await restClient(otherUrl).get('/v1/catalog/shops/shop_x')).status);
  }
  assert.deepEqual(statuses.slice(0, 20), Array(20).fill(401));
  assert.deepEqual(statuses.slice(20), [429, 429, 429, 429]);
});

test('a request answered before its credential is checked is charged to its address before the answer leaves', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const m = await h.merchant();
  // The address's counter row exists once one request without a credential was charged to it.
  assert.equal((await restClient(h.url).get('/v1/catalog/shops/shop_x')).status, 401);
  const points = async () =>
    (await h.db.execute<{ points: number }>(`select points from rate_limits where key like 'addr:%'`))[0]!.points;
  const before = await points();
  // Hold that row from outside: a charge of the address now waits until it is let go.
  const holder = await holdRows(h.dbUrl, `select key from rate_limits where key like 'addr:%' for update`);
  try {
    // An unknown route with a credential: no tool runs, so nothing checks the credential and the address pays first.
    let answer: RestResponse | undefined;
    const asked = restClient(h.url, m.apiKey)
      .get('/v1/no-such-route')
      .then((r) => (answer = r));
    const waiting = await poll(async () => await holder.waiters());
    assert.ok(waiting, 'the charge is waiting on the counter row');
    assert.equal(answer, undefined, 'not answered while the charge waits');
    await holder.release();
    await asked;
    assert.equal((answer as RestResponse | undefined)?.status, 404);
  } finally {
    await holder.end();
  }
  assert.equal(await points(), before + 1, 'charged once');
});

test('issue #32 (4): from a spent address, junk bearers get 429 on routes that never check them, and store nothing', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const client = (
    await restClient(h.url).post('/oauth/register', {
      client_name: 'Budget host',
      redirect_uris: ['http://127.0.0.1:1/callback'],
      token_endpoint_auth_method: 'none',
    })
  ).body as { client_id: string };
  assert.ok(client.client_id);
  const authorize = `/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: 'http://127.0.0.1:1/callback',
    state: 's',
    scope: 'tessera:agent',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  })}`;
  const interactions = async () =>
    Number(
      (await h.db.execute<{ n: string }>(`select count(*) as n from oauth_records where kind = 'Interaction'`))[0]!.n,
    );
  // Spend the address's budget without a credential (the registration above was one point).
  for (let i = 0; i < 19; i++) await restClient(h.url).get('/v1/catalog/shops/shop_x');
  assertLimited(await restClient(h.url).get(authorize));
  const stored = await interactions();
  const junk = () => restClient(h.url, `junk${crypto.randomUUID()}`);
  const rpc = (method: string, params: unknown) =>
    junk().post('/a2a/jsonrpc', { jsonrpc: '2.0', id: 1, method, params }, { 'a2a-version': '1.0' });
  for (let i = 0; i < 5; i++) assertLimited(await junk().get(authorize));
  assert.equal(await interactions(), stored, 'no OAuth interaction stored past the budget');
  assertLimited(await rpc('GetTask', { id: crypto.randomUUID() }));
  assertLimited(await rpc('ListTasks', {}));
  assertLimited(await rpc('GetExtendedAgentCard', {}));
  assertLimited(await junk().get('/metrics'));
  assertLimited(await junk().get('/v1/openapi.json'));
  assertLimited(await junk().get('/.well-known/oauth-authorization-server'));
  assertLimited(await junk().get('/v1/no-such-route'));
  // The health checks stay unlimited.
  assert.equal((await junk().get('/healthz')).status, 200);
});

test('sign-in, code and token endpoints have a stricter budget: token guesses are refused after five', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const anon = restClient(h.url);
  const codes: string[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await anon.post('/v1/buyer/sessions', { token: `guess-${i}-${'x'.repeat(30)}` });
    codes.push(res.body.code);
    if (i === 5) assertLimited(res);
  }
  assert.ok(
    codes.slice(0, 5).every((c) => c !== 'rate_limited'),
    codes.join(','),
  );
  // The ordinary budget is untouched by the strict one running out.
  assert.equal((await anon.get('/v1/catalog/shops/shop_x')).status, 401);
});

test('console sign-in completion and invitation acceptance are on the stricter budget too (issue #32)', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const anon = restClient(h.url);
  const guess = (i: number) => `guess-${i}-${'x'.repeat(30)}`;
  const codes: string[] = [];
  const complete = (token: string) => anon.post('/v1/console/sign-in/complete', { token });
  for (let i = 0; i < 5; i++) codes.push((await complete(guess(i))).body.code);
  assert.deepEqual(codes, Array(5).fill('sign_in_link_invalid'));
  assertLimited(await complete(guess(5)));
  assertLimited(await anon.post('/v1/console/team/invitations/accept', { token: guess(6) }));
  assert.equal((await anon.get('/v1/catalog/shops/shop_x')).status, 401, 'the ordinary budget is not spent');
});

test('invitation acceptance alone spends the stricter budget', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const anon = restClient(h.url);
  const accept = (i: number) =>
    anon.post('/v1/console/team/invitations/accept', { token: `guess-${i}-${'x'.repeat(30)}` });
  const codes: string[] = [];
  for (let i = 0; i < 5; i++) codes.push((await accept(i)).body.code);
  assert.deepEqual(codes, Array(5).fill('invitation_invalid'));
  assertLimited(await accept(5));
});

test("over A2A the budget is the principal's too: past it a new task, a follow-up and a task read are 429, and the refused skill runs and stores nothing", async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const a = await h.merchant();
  const api = restClient(h.url, a.apiKey);
  const { tier } = await tierOnSale(api, a.shopId, 'A2A budget night');
  const rpc = (method: string, params: unknown) =>
    api.post('/a2a/jsonrpc', { jsonrpc: '2.0', id: 1, method, params }, { 'a2a-version': '1.0' });
  const quote = (taskId?: string) =>
    rpc('SendMessage', {
      message: {
        messageId: crypto.randomUUID(),
        role: 'ROLE_USER',
        ...(taskId ? { taskId } : {}),
        parts: [{ data: { skill: 'quote', input: { tierId: tier.id, quantity: 1 } } }],
      },
    });
  // A refused call (input-required) leaves a task to follow up on.
  const open = await rpc('SendMessage', {
    message: {
      messageId: crypto.randomUUID(),
      role: 'ROLE_USER',
      parts: [{ data: { skill: 'quote', input: { tierId: tier.id, quantity: 1, colour: 'red' } } }],
    },
  });
  assert.equal(open.body.result?.task?.status?.state, 'TASK_STATE_INPUT_REQUIRED', JSON.stringify(open.body));
  // 4 points spent; 16 quotes over A2A spend the rest, each a task of its own.
  for (let i = 0; i < 16; i++) assert.equal((await quote()).body.result?.task?.status?.state, 'TASK_STATE_COMPLETED');
  const counts = async () => {
    const [row] = await h.db.execute<{ quotes: string; tasks: string }>(
      'select (select count(*) from quotes where tier_id = ?) as quotes, (select count(*) from a2a_tasks) as tasks',
      [tier.id],
    );
    return { quotes: Number(row!.quotes), tasks: Number(row!.tasks) };
  };
  const before = await counts();
  assert.equal(before.quotes, 16);
  // The charge of a new task's message runs beside the SDK's start of the task; the skill waits for it.
  assertLimited(await quote());
  assertLimited(await quote(open.body.result.task.id));
  assertLimited(await rpc('GetTask', { id: open.body.result.task.id }));
  assert.deepEqual(await counts(), before, 'no quote made and no task stored past the budget');
});

test('an MCP call that runs no tool with a verified credential pays its principal: a spent address does not refuse it', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const m = await h.merchant();
  for (let i = 0; i < 20; i++) await restClient(h.url).get('/v1/catalog/shops/shop_x');
  assertLimited(await restClient(h.url).get('/v1/catalog/shops/shop_x'));
  const toolsList = () =>
    restClient(h.url, m.apiKey).post(
      '/mcp',
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      {
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
    );
  // The address is spent; the key's own budget is not (the merchant's set-up above was made with another credential).
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++) statuses.push((await toolsList()).status);
  assert.deepEqual(statuses.slice(0, 20), Array(20).fill(200), statuses.join(','));
  assert.equal(statuses[20], 429, 'past its own budget the principal is refused');
});

test('issue #36 (4): over MCP on HTTP a tools/call past the budget is HTTP 429 with Retry-After, not 200 with an error', async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const m = await h.merchant();
  const mcp = (body: unknown) =>
    restClient(h.url, m.apiKey).post('/mcp', body, {
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    });
  const call = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'list_pools', arguments: { merchantId: m.shopId } },
  };
  // tools/list is counted too (76f8ab3): 10 lists and 10 calls spend the budget of 20.
  for (let i = 0; i < 10; i++) assert.equal((await mcp({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).status, 200);
  for (let i = 0; i < 10; i++) {
    const ok = await mcp(call);
    assert.equal(ok.status, 200);
    assert.equal(ok.body.result.isError, undefined, JSON.stringify(ok.body));
  }
  assertLimited(await mcp(call));
  assertLimited(await mcp({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
});

test("issue #36 (4): the pages' static files (buyer and console assets, message catalogs) never spend the address budget", async (t) => {
  const h = await startHarness(LIMITS);
  t.after(() => h.close());
  const files = [
    '/buyer/assets/buyer.css',
    '/buyer/assets/app.js',
    '/console/assets/console.js',
    '/buyer/i18n/de.json',
  ];
  // 15 page views' worth of files from one address (60 requests, three times the budget of 20): all served.
  for (let i = 0; i < 15; i++) {
    for (const file of files) assert.equal((await fetch(`${h.url}${file}`)).status, 200, file);
  }
  // The address's API budget is untouched: 20 anonymous API calls still answer, the 21st is refused.
  for (let i = 0; i < 20; i++) assert.notEqual((await restClient(h.url).get('/v1/catalog/shops/shop_x')).status, 429);
  assertLimited(await restClient(h.url).get('/v1/catalog/shops/shop_x'));
});
