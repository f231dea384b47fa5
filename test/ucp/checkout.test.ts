/** UCP checkout through the public surfaces: a platform that read only /.well-known/ucp buys tickets (REST and MCP). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { callTool, mcpInMemory } from '../support/mcp.ts';
import { restClient } from '../support/rest.ts';
import { acpClient, completeBody, createBody, delegateBody, must, shopWithTier } from '../support/acp.ts';

/** Platform profiles, served on loopback (WEBHOOK_ALLOW_LOOPBACK lets the server fetch them). */
const PROFILES: Record<string, unknown> = {
  '/platform.json': platformProfile('2026-04-08', ['dev.ucp.shopping.checkout', 'dev.ucp.shopping.fulfillment']),
  '/old.json': platformProfile('2026-01-11', ['dev.ucp.shopping.checkout']),
  '/no-checkout.json': platformProfile('2026-04-08', ['dev.ucp.shopping.cart']),
  '/broken.json': { hello: 'world' },
  '/catalog.json': platformProfile('2026-04-08', [
    'dev.ucp.shopping.checkout',
    'dev.ucp.shopping.catalog.search',
    'dev.ucp.shopping.catalog.lookup',
  ]),
};
function platformProfile(version: string, capabilities: string[]) {
  const caps = Object.fromEntries(capabilities.map((c) => [c, [{ version }]]));
  return { ucp: { version, services: {}, capabilities: caps, payment_handlers: {} } };
}
let h: Harness;
let profiles: Server;
let base = '';
const agent = (path = '/platform.json') => ({ 'ucp-agent': `profile="${base}${path}"` });
let AGENT: Record<string, string>;
before(async () => {
  profiles = createServer((req, res) => {
    const body = PROFILES[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => profiles.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(profiles.address() as AddressInfo).port}`;
  AGENT = agent();
  h = await startHarness({
    SWEEP_INTERVAL_MS: '0',
    SANDBOX_DISPATCH_MS: '0',
    RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
  });
});
after(async () => {
  await h?.close();
  profiles?.close();
});

/** What a platform learns from the profile: the REST endpoint and the sandbox card handler's id. */
async function discover() {
  const profile = must(await restClient(h.url).get('/.well-known/ucp'), 200);
  assert.equal(profile.ucp.version, '2026-04-08');
  assert.deepEqual(Object.keys(profile.ucp.capabilities), [
    'dev.ucp.shopping.checkout',
    'dev.ucp.shopping.order',
    'dev.ucp.common.identity_linking',
    'dev.ucp.shopping.discount',
    'dev.ucp.shopping.catalog.search',
    'dev.ucp.shopping.catalog.lookup',
  ]);
  assert.ok(Array.isArray(profile.signing_keys));
  const rest = profile.ucp.services['dev.ucp.shopping'].find((s: { transport: string }) => s.transport === 'rest');
  const [handler] = Object.values(profile.ucp.payment_handlers).flat() as { id: string }[];
  return { endpoint: new URL(rest.endpoint).pathname, handlerId: handler!.id };
}

const instrument = (handlerId: string, token = 'pm_sandbox_visa') => ({
  payment: {
    instruments: [{ id: 'ins_1', handler_id: handlerId, type: 'card', credential: { type: 'sandbox_token', token } }],
  },
});

test('a platform that read only the profile completes a checkout with a test card; a replay pays once', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const { endpoint, handlerId } = await discover();
  const api = restClient(h.url, s.apiKey);
  const created = must(
    await api.post(
      `${endpoint}/checkout-sessions`,
      { line_items: [{ item: { id: s.tierId }, quantity: 2 }], buyer: { email: 'ada@example.test' } },
      AGENT,
    ),
    201,
  );
  assert.equal(created.status, 'ready_for_complete');
  assert.equal(created.currency, 'USD');
  assert.deepEqual(created.ucp.capabilities, { 'dev.ucp.shopping.checkout': [{ version: '2026-04-08' }] });
  assert.equal(created.totals.find((t: { type: string }) => t.type === 'total').amount, 5000);
  const key = { ...AGENT, 'idempotency-key': randomUUID() };
  const done = must(
    await api.post(`${endpoint}/checkout-sessions/${created.id}/complete`, instrument(handlerId), key),
    200,
  );
  assert.equal(done.status, 'completed');
  assert.match(done.order.id, /^ord_/);
  const again = await api.post(`${endpoint}/checkout-sessions/${created.id}/complete`, instrument(handlerId), key);
  assert.equal(again.status, 200);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.body.order.id, done.order.id);
  const got = must(await api.get(`${endpoint}/checkout-sessions/${created.id}`, AGENT), 200);
  assert.equal(got.status, 'completed');
  const counts = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([counts.sold, counts.held, counts.available], [2, 0, 3]);
});

test('unknown fields, a missing UCP-Agent and another organization’s session are refused', async () => {
  const s = await shopWithTier(h);
  const other = await shopWithTier(h);
  const { endpoint } = await discover();
  const api = restClient(h.url, s.apiKey);
  const body = { line_items: [{ item: { id: s.tierId }, quantity: 1 }] };
  const unknown = await api.post(`${endpoint}/checkout-sessions`, { ...body, gift_wrap: true }, AGENT);
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, 'unknown_field');
  assert.equal(typeof unknown.body.content, 'string');
  const anonymous = await api.post(`${endpoint}/checkout-sessions`, body);
  assert.deepEqual([anonymous.status, anonymous.body.code], [400, 'invalid_profile_url']);
  const mine = must(await api.post(`${endpoint}/checkout-sessions`, body, AGENT), 201);
  const theirs = await restClient(h.url, other.apiKey).get(`${endpoint}/checkout-sessions/${mine.id}`, AGENT);
  assert.deepEqual([theirs.status, theirs.body.code], [404, 'not_found']);
  const canceled = must(await api.post(`${endpoint}/checkout-sessions/${mine.id}/cancel`, undefined, AGENT), 200);
  assert.equal(canceled.status, 'canceled');
  assert.equal((await assertInvariant(h.db, s.poolId)).held, 0);
});

test('UCP and ACP sell from the same pool without oversell', async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const { endpoint, handlerId } = await discover();
  const api = restClient(h.url, s.apiKey);
  const ucp = must(
    await api.post(`${endpoint}/checkout-sessions`, { line_items: [{ item: { id: s.tierId }, quantity: 2 }] }, AGENT),
    201,
  );
  assert.equal(ucp.status, 'ready_for_complete');
  const acp = acpClient(h, s.apiKey);
  const late = must(await acp.post('/checkout_sessions', createBody(s.tierId, {}, 2)), 201);
  assert.equal(late.status, 'not_ready_for_payment');
  assert.equal(late.messages[0].code, 'out_of_stock');
  // Each protocol sees only its own sessions.
  assert.equal((await api.get(`${endpoint}/checkout-sessions/${late.id}`, AGENT)).status, 404);
  assert.equal((await acp.get(`/checkout_sessions/${ucp.id}`)).status, 404);
  const wait = must(
    await api.put(
      `${endpoint}/checkout-sessions/${ucp.id}`,
      { line_items: [{ item: { id: s.tierId }, quantity: 4 }] },
      AGENT,
    ),
    200,
  );
  assert.equal(wait.status, 'incomplete');
  assert.equal(wait.messages[0].severity, 'recoverable');
  const back = must(
    await api.put(
      `${endpoint}/checkout-sessions/${ucp.id}`,
      { line_items: [{ item: { id: s.tierId }, quantity: 2 }] },
      AGENT,
    ),
    200,
  );
  assert.equal(back.status, 'ready_for_complete');
  const done = must(
    await api.post(`${endpoint}/checkout-sessions/${ucp.id}/complete`, instrument(handlerId), AGENT),
    200,
  );
  assert.equal(done.status, 'completed');
  const counts = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([counts.sold, counts.available], [2, 1]);
});

test('UCP and ACP buyers racing for the last places of one pool: never more sold than its capacity', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const { endpoint, handlerId } = await discover();
  const api = restClient(h.url, s.apiKey);
  const acp = acpClient(h, s.apiKey);
  const ucpBuy = async (): Promise<number> => {
    const body = { line_items: [{ item: { id: s.tierId }, quantity: 1 }] };
    const created = must(await api.post(`${endpoint}/checkout-sessions`, body, AGENT), 201);
    if (created.status !== 'ready_for_complete') return 0;
    const done = await api.post(`${endpoint}/checkout-sessions/${created.id}/complete`, instrument(handlerId), AGENT);
    return done.body.status === 'completed' ? 1 : 0;
  };
  const acpBuy = async (): Promise<number> => {
    const created = must(await acp.post('/checkout_sessions', createBody(s.tierId, {}, 1)), 201);
    if (created.status !== 'ready_for_payment') return 0;
    const total = created.totals.find((t: { type: string }) => t.type === 'total').amount;
    const allowance = { max_amount: total, checkout_session_id: created.id, merchant_id: s.shopId };
    const token = must(await acp.post('/agentic_commerce/delegate_payment', delegateBody(allowance)), 201);
    const done = await acp.post(`/checkout_sessions/${created.id}/complete`, completeBody(token.id));
    return done.body.status === 'completed' ? 1 : 0;
  };
  // Eight buyers on each protocol at once for five places.
  const sold = await Promise.all(Array.from({ length: 16 }, (_, i) => (i % 2 ? ucpBuy() : acpBuy())));
  const counts = await assertInvariant(h.db, s.poolId);
  assert.equal(
    sold.reduce((a, b) => a + b, 0),
    5,
    'every place sold once',
  );
  assert.deepEqual([counts.sold, counts.held, counts.available], [5, 0, 0]);
});

test('over MCP: create_checkout and complete_checkout as UCP’s MCP binding names them', async () => {
  const s = await shopWithTier(h, { capacity: 2 });
  const { handlerId } = await discover();
  const client = await mcpInMemory(h, s.apiKey);
  const meta = { 'ucp-agent': { profile: `${base}/platform.json` } };
  const created = await callTool(client, 'create_checkout', {
    meta,
    checkout: { line_items: [{ item: { id: s.tierId }, quantity: 1 }] },
  });
  assert.ok(created.ok, JSON.stringify(created));
  const done = await callTool(client, 'complete_checkout', {
    meta: { ...meta, 'idempotency-key': randomUUID() },
    id: created.output.id,
    checkout: instrument(handlerId),
  });
  assert.ok(done.ok, JSON.stringify(done));
  assert.equal(done.output.status, 'completed');
  // UCP's MCP binding: a failed negotiation is JSON-RPC error -32001 with { code, content } in data.
  const refused = await client
    .callTool({
      name: 'get_checkout',
      arguments: { meta: { 'ucp-agent': { profile: `${base}/old.json` } }, id: created.output.id },
    })
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  assert.ok(refused instanceof McpError, String(refused));
  assert.deepEqual([refused.code, (refused.data as { code: string }).code], [-32001, 'version_unsupported']);
  await client.close();
  assert.equal((await assertInvariant(h.db, s.poolId)).sold, 1);
});

test('negotiation: the platform profile is fetched, its version checked and the capabilities intersected', async () => {
  const s = await shopWithTier(h);
  const { endpoint } = await discover();
  const api = restClient(h.url, s.apiKey);
  const body = { line_items: [{ item: { id: s.tierId }, quantity: 1 }] };
  const refused = async (path: string) => {
    const res = await api.post(`${endpoint}/checkout-sessions`, body, agent(path));
    return [res.status, res.body.code];
  };
  // No capability in common: UCP's 200 envelope with ucp.status "error", not an error response.
  const incompatible = await api.post(`${endpoint}/checkout-sessions`, body, agent('/no-checkout.json'));
  assert.equal(incompatible.status, 200);
  assert.deepEqual(incompatible.body.ucp, { version: '2026-04-08', status: 'error', capabilities: {} });
  const [why] = incompatible.body.messages;
  assert.deepEqual([why.type, why.code, why.severity], ['error', 'capabilities_incompatible', 'unrecoverable']);
  assert.deepEqual(await refused('/old.json'), [422, 'version_unsupported']);
  assert.deepEqual(await refused('/broken.json'), [422, 'profile_malformed']);
  assert.deepEqual(await refused('/missing.json'), [424, 'profile_unreachable']);
  const outside = await api.post(`${endpoint}/checkout-sessions`, body, {
    'ucp-agent': 'profile="https://10.0.0.1/profile.json"',
  });
  assert.deepEqual([outside.status, outside.body.code], [400, 'invalid_profile_url']);
  assert.equal((await assertInvariant(h.db, s.poolId)).held, 0, 'nothing is held for a refused negotiation');
  // The fulfillment extension the platform declares is declined: only checkout is active.
  const ok = must(await api.post(`${endpoint}/checkout-sessions`, body, agent()), 201);
  assert.deepEqual(Object.keys(ok.ucp.capabilities), ['dev.ucp.shopping.checkout']);
});

test('catalog: search and lookup find a discoverable shop’s events and tiers, usable in a checkout', async () => {
  const s = await shopWithTier(h);
  must(await s.api.patch(`/v1/integration/shops/${s.shopId}`, { discoverable: true }), 200);
  const title = `Catalog Gala ${randomUUID().slice(0, 8)}`;
  const startsAt = new Date(h.clock.now().getTime() + 40 * 86_400_000).toISOString();
  const event = must(await s.api.post('/v1/integration/events', { merchantId: s.shopId, title, startsAt }), 201);
  const pool = must(
    await s.api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: event.id, capacity: 4 }),
    201,
  );
  const tier = (name: string, priceMinor: number) =>
    s.api.post('/v1/integration/tiers', { eventId: event.id, poolId: pool.id, name, priceMinor });
  const floor = must(await tier('Floor', 4000), 201);
  const balcony = must(await tier('Balcony', 2500), 201);
  const profile = must(await restClient(h.url).get('/.well-known/ucp'), 200);
  assert.ok(profile.ucp.capabilities['dev.ucp.shopping.catalog.search']);
  assert.ok(profile.ucp.capabilities['dev.ucp.shopping.catalog.lookup']);

  // Public: no credential, only the platform's profile.
  const anonymous = restClient(h.url);
  const CATALOG = agent('/catalog.json');
  const found = must(await anonymous.post('/ucp/v1/catalog/search', { query: title.toLowerCase() }, CATALOG), 200);
  assert.deepEqual(found.ucp.capabilities, { 'dev.ucp.shopping.catalog.search': [{ version: '2026-04-08' }] });
  assert.deepEqual(
    found.products.map((p: any) => [p.id, p.title, p.price_range.min.amount, p.price_range.max.amount]),
    [[event.id, title, 2500, 4000]],
  );
  assert.deepEqual(
    found.products[0].variants.map((v: any) => [v.id, v.price, v.availability]),
    [
      [floor.id, { amount: 4000, currency: 'USD' }, { available: true, status: 'in_stock' }],
      [balcony.id, { amount: 2500, currency: 'USD' }, { available: true, status: 'in_stock' }],
    ],
  );
  assert.equal(found.pagination.has_next_page, false);

  const ids = [event.id, balcony.id, balcony.id, 'evt_unknown'];
  const looked = must(await anonymous.post('/ucp/v1/catalog/lookup', { ids }, CATALOG), 200);
  assert.equal(looked.products.length, 1);
  assert.deepEqual(
    looked.products[0].variants.map((v: any) => [v.id, v.inputs]),
    [
      [floor.id, [{ id: event.id, match: 'featured' }]],
      [balcony.id, [{ id: balcony.id, match: 'exact' }]],
    ],
  );

  // Over MCP, as UCP's binding names the tool.
  const client = await mcpInMemory(h, s.apiKey);
  const viaMcp = await callTool(client, 'lookup_catalog', {
    meta: { 'ucp-agent': { profile: `${base}/catalog.json` } },
    catalog: { ids: [floor.id] },
  });
  await client.close();
  assert.ok(viaMcp.ok, JSON.stringify(viaMcp));
  assert.deepEqual(
    viaMcp.output.products.map((p: any) => p.variants.map((v: any) => v.id)),
    [[floor.id]],
  );
  // A hidden shop's events are not in the catalog.
  must(await s.api.patch(`/v1/integration/shops/${s.shopId}`, { discoverable: false }), 200);
  const hidden = must(await anonymous.post('/ucp/v1/catalog/lookup', { ids: [event.id] }, CATALOG), 200);
  assert.deepEqual(hidden.products, []);
  // Negotiation: a platform without the catalog capability is refused; unknown fields too.
  const refused = await anonymous.post('/ucp/v1/catalog/search', { query: title }, AGENT);
  assert.deepEqual([refused.status, refused.body.messages[0].code], [200, 'capabilities_incompatible']);
  const unknown = await anonymous.post('/ucp/v1/catalog/search', { query: title, sort: 'price' }, CATALOG);
  assert.deepEqual([unknown.status, unknown.body.code], [400, 'unknown_field']);

  // The variant id is the checkout's item id.
  const created = must(
    await restClient(h.url, s.apiKey).post(
      '/ucp/v1/checkout-sessions',
      { line_items: [{ item: { id: balcony.id }, quantity: 1 }] },
      CATALOG,
    ),
    201,
  );
  assert.equal(created.status, 'ready_for_complete');
});

test('a discount code in a UCP checkout is applied to the totals; an unknown one is a warning', async () => {
  const s = await shopWithTier(h, { capacity: 5, priceMinor: 5000 });
  must(
    await s.api.post('/v1/integration/discount-codes', {
      merchantId: s.shopId,
      code: 'GALA10',
      kind: 'fixed',
      amountOffMinor: 1000,
    }),
    201,
  );
  const { endpoint } = await discover();
  const api = restClient(h.url, s.apiKey);
  const line = { line_items: [{ item: { id: s.tierId }, quantity: 2 }] };
  const created = must(
    await api.post(`${endpoint}/checkout-sessions`, { ...line, discounts: { codes: ['gala10'] } }, AGENT),
    201,
  );
  assert.deepEqual(created.discounts.codes, ['GALA10']); // codes match in any case
  assert.equal(created.discounts.applied[0].code, 'GALA10');
  assert.equal(created.discounts.applied[0].amount, 1000);
  const total = (c: any, type: string) => c.totals.find((t: { type: string }) => t.type === type)?.amount;
  assert.equal(total(created, 'items_discount'), -1000); // signed: a discount is negative
  assert.equal(total(created, 'total'), 9000);
  const wrong = must(
    await api.put(`${endpoint}/checkout-sessions/${created.id}`, { ...line, discounts: { codes: ['NOPE'] } }, AGENT),
    200,
  );
  assert.deepEqual(wrong.discounts.applied, []);
  assert.equal(total(wrong, 'total'), 10000);
  const warning = wrong.messages.find((m: { code?: string }) => m.code === 'discount_code_invalid');
  assert.deepEqual([warning.type, warning.path], ['warning', '$.discounts.codes[0]']);
  assert.equal((await assertInvariant(h.db, s.poolId)).held, 2);
});

test('a UCP checkout of two line items (two tiers of one event) completes as one order', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const api = restClient(h.url, s.apiKey);
  const pool = must(
    await api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: s.eventId, capacity: 4 }),
    201,
  );
  const child = must(
    await api.post('/v1/integration/tiers', { eventId: s.eventId, poolId: pool.id, name: 'Child', priceMinor: 1000 }),
    201,
  );
  const { endpoint, handlerId } = await discover();
  const items = [
    { item: { id: s.tierId }, quantity: 2 },
    { item: { id: child.id }, quantity: 1 },
  ];
  const created = must(await api.post(`${endpoint}/checkout-sessions`, { line_items: items }, AGENT), 201);
  assert.deepEqual(
    created.line_items.map((li: { item: { id: string }; quantity: number }) => [li.item.id, li.quantity]),
    [
      [s.tierId, 2],
      [child.id, 1],
    ],
  );
  const key = { ...AGENT, 'idempotency-key': randomUUID() };
  const done = must(
    await api.post(`${endpoint}/checkout-sessions/${created.id}/complete`, instrument(handlerId), key),
    200,
  );
  assert.equal(done.status, 'completed');
  assert.deepEqual((await assertInvariant(h.db, s.poolId)).sold, 2);
  assert.deepEqual((await assertInvariant(h.db, pool.id)).sold, 1);
});
