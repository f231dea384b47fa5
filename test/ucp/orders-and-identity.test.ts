/**
 * UCP orders and identity linking. Order webhooks: a platform whose profile declares the order capability with a
 * webhook_url receives the order after a REST complete and after an MCP complete, signed as UCP's signatures.md says
 * (RFC 9421, ES256, Content-Digest RFC 9530), and the full order again after a refund; the signature is checked by a
 * verifier written from the spec with the key our profile publishes, not by our signer's library. Identity linking: a
 * platform the buyer authorized on our consent pages (code + PKCE) creates and completes UCP checkouts with the access
 * token as the buyer's agent, held to the permission's limits.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey, randomUUID, verify, type JsonWebKey } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Harness } from '../support/harness.ts';
import { buyerWithAgent, merchantShop, startWorld, type World } from '../support/buyers.ts';
import { assertInvariant } from '../support/invariant.ts';
import { callTool, mcpHttp, mcpInMemory } from '../support/mcp.ts';
import { restClient } from '../support/rest.ts';
import { startReceiver, type Received, type Receiver } from '../support/webhook-receiver.ts';
import { must, shopWithTier } from '../support/acp.ts';
import {
  authorizeUrl,
  authorizeWith,
  Browser,
  pkce,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from '../oauth/support.ts';

const V = '2026-04-08';
let w: World;
let h: Harness;
let rx: Receiver;
let profiles: Server;
let AGENT: Record<string, string>;
let profileUrl = '';
before(async () => {
  rx = await startReceiver();
  const profile = {
    ucp: {
      version: V,
      services: {},
      payment_handlers: {},
      capabilities: {
        'dev.ucp.shopping.checkout': [{ version: V }],
        'dev.ucp.shopping.order': [{ version: V, config: { webhook_url: `${rx.url}/ucp/orders` } }],
      },
    },
  };
  // A platform without the order capability (for identity linking): checkout only.
  const checkoutOnly = { ucp: { ...profile.ucp, capabilities: { 'dev.ucp.shopping.checkout': [{ version: V }] } } };
  profiles = createServer((req, res) => {
    const body = req.url === '/checkout-only.json' ? checkoutOnly : profile;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => profiles.listen(0, '127.0.0.1', resolve));
  profileUrl = `http://127.0.0.1:${(profiles.address() as AddressInfo).port}/platform.json`;
  AGENT = { 'ucp-agent': `profile="${profileUrl}"` };
  // A world (a harness with a mailbox): the buyer's consent for identity linking is confirmed by an e-mailed code.
  w = await startWorld({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
  h = w.h;
});
after(async () => {
  await w?.close();
  await rx?.close();
  profiles?.close();
});

/**
 * The platform's check, from signatures.md: Content-Digest is sha-256 of the raw body; the RFC 9421 signature base is
 * rebuilt from the components Signature-Input names; the ES256 signature (raw r||s) verifies with the `signing_keys`
 * entry whose kid is the keyid.
 */
function verifyUcpWebhook(r: Received, keys: (JsonWebKey & { kid: string })[]): boolean {
  const header = (name: string) => String(r.headers[name] ?? '');
  if (header('content-digest') !== `sha-256=:${createHash('sha256').update(r.body).digest('base64')}:`) return false;
  const input = /^sig1=(\(([^)]*)\).*)$/.exec(header('signature-input'));
  const signature = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(header('signature'));
  const keyid = /;keyid="([^"]+)"/.exec(header('signature-input'))?.[1];
  const jwk = keys.find((k) => k.kid === keyid);
  if (!input || !signature || !jwk) return false;
  const components = input[2]!.split(' ').map((c) => c.replace(/"/g, ''));
  const value = (c: string) =>
    c === '@method' ? 'POST' : c === '@authority' ? header('host') : c === '@path' ? r.path : header(c);
  const base = [...components.map((c) => `"${c}": ${value(c)}`), `"@signature-params": ${input[1]}`].join('\n');
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  return verify('sha256', Buffer.from(base), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature[1]!, 'base64'));
}

/** Dispatches the outbox and returns the n-th order webhook, its signature checked against our profile's keys. */
async function nextOrderWebhook(n: number): Promise<any> {
  await h.app.services.webhooks.dispatchOnce();
  await rx.waitFor(n, 30_000);
  const got = rx.received.filter((r) => r.path === '/ucp/orders');
  assert.equal(got.length, n);
  const raw = got[n - 1]!;
  const profile = must(await restClient(h.url).get('/.well-known/ucp'), 200);
  assert.deepEqual(profile.ucp.capabilities['dev.ucp.shopping.order'][0].version, V);
  assert.equal(raw.headers['ucp-agent'], `profile="${h.url}/.well-known/ucp"`);
  assert.match(String(raw.headers['webhook-id']), /^whe_/);
  assert.match(String(raw.headers['webhook-timestamp']), /^\d+$/);
  assert.match(String(raw.headers['signature-input']), /^sig1=\("@method" "@authority" "@path" "ucp-agent" /);
  assert.ok(verifyUcpWebhook(raw, profile.signing_keys), 'the signature verifies with the key our profile publishes');
  const tampered = { ...raw, body: raw.body.replace('"fulfilled"', '"processing"') };
  assert.ok(!verifyUcpWebhook(tampered, profile.signing_keys), 'a changed body does not');
  return JSON.parse(raw.body);
}

const instrument = {
  payment: {
    instruments: [
      {
        id: 'ins_1',
        handler_id: 'sandbox_card',
        type: 'card',
        credential: { type: 'sandbox_token', token: 'pm_sandbox_visa' },
      },
    ],
  },
};

test('a REST complete and an MCP complete each send the signed order; a refund sends the updated order', async () => {
  const s = await shopWithTier(h, { capacity: 5, priceMinor: 2500 });
  const api = restClient(h.url, s.apiKey);
  const body = { line_items: [{ item: { id: s.tierId }, quantity: 2 }] };
  const created = must(await api.post('/ucp/v1/checkout-sessions', body, AGENT), 201);
  const key = { ...AGENT, 'idempotency-key': randomUUID() };
  const done = must(await api.post(`/ucp/v1/checkout-sessions/${created.id}/complete`, instrument, key), 200);
  assert.equal(done.status, 'completed');

  const placed = await nextOrderWebhook(1);
  assert.equal(placed.id, done.order.id);
  assert.equal(placed.checkout_id, created.id);
  assert.equal(placed.permalink_url, `${h.url}/v1/ticketing/orders/${done.order.id}`);
  assert.equal(placed.currency, 'USD');
  assert.deepEqual(placed.ucp, { version: V, capabilities: { 'dev.ucp.shopping.order': [{ version: V }] } });
  assert.deepEqual(placed.line_items[0].quantity, { original: 2, total: 2, fulfilled: 2 });
  assert.equal(placed.line_items[0].status, 'fulfilled');
  assert.deepEqual(placed.adjustments, []);
  assert.equal(placed.totals.find((t: any) => t.type === 'total').amount, 5000);

  const client = await mcpInMemory(h, s.apiKey);
  const meta = { 'ucp-agent': { profile: profileUrl } };
  const viaMcp = await callTool(client, 'create_checkout', { meta, checkout: { line_items: [body.line_items[0]] } });
  assert.ok(viaMcp.ok, JSON.stringify(viaMcp));
  const paid = await callTool(client, 'complete_checkout', { meta, id: viaMcp.output.id, checkout: instrument });
  assert.ok(paid.ok, JSON.stringify(paid));
  await client.close();
  const second = await nextOrderWebhook(2);
  assert.equal(second.id, paid.output.order.id);
  assert.equal(second.checkout_id, viaMcp.output.id);

  const order = must(await api.get(`/v1/ticketing/orders/${done.order.id}`), 200);
  const refund = await api.post(
    `/v1/ticketing/orders/${done.order.id}/refunds`,
    { ticketIds: [order.tickets[0].id], reason: 'Cannot attend', returnToPool: true },
    { 'idempotency-key': randomUUID() },
  );
  assert.equal(refund.status, 200, JSON.stringify(refund.body));
  const updated = await nextOrderWebhook(3);
  assert.equal(updated.id, done.order.id);
  assert.deepEqual(updated.line_items[0].quantity, { original: 2, total: 1, fulfilled: 1 });
  assert.equal(updated.adjustments.length, 1);
  assert.deepEqual(
    [updated.adjustments[0].type, updated.adjustments[0].status, updated.adjustments[0].line_items[0].quantity],
    ['refund', 'completed', -1],
  );
  assert.deepEqual(updated.adjustments[0].totals, [{ type: 'total', amount: -2500 }]);
  const [delivery] = await h.db.execute<{ kind: string; status: string }>(
    `select s.kind, d.status from webhook_deliveries d join webhook_subscriptions s on s.id = d.subscription_id
      join webhook_events e on e.id = d.event_id where e.type = 'ucp.order_update'`,
  );
  assert.deepEqual(delivery, { kind: 'ucp', status: 'delivered' }, 'a delivery record like every webhook’s');
  assert.deepEqual(must(await api.get(`/v1/integration/webhooks?merchantId=${s.shopId}`), 200).webhooks, []);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.sold, c.held, c.available], [3, 0, 2]);
});

test('an order webhook_url outside the address policy is refused before anything is charged', async () => {
  const s = await shopWithTier(h, { capacity: 2 });
  const api = restClient(h.url, s.apiKey);
  const badProfile = createServer((_req, res) => {
    const caps = {
      'dev.ucp.shopping.checkout': [{ version: V }],
      'dev.ucp.shopping.order': [{ version: V, config: { webhook_url: 'https://10.0.0.7/orders' } }],
    };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ucp: { version: V, services: {}, payment_handlers: {}, capabilities: caps } }));
  });
  await new Promise<void>((resolve) => badProfile.listen(0, '127.0.0.1', resolve));
  const agent = { 'ucp-agent': `profile="http://127.0.0.1:${(badProfile.address() as AddressInfo).port}/p.json"` };
  try {
    const created = must(
      await api.post('/ucp/v1/checkout-sessions', { line_items: [{ item: { id: s.tierId }, quantity: 1 }] }, agent),
      201,
    );
    const refused = await api.post(`/ucp/v1/checkout-sessions/${created.id}/complete`, instrument, agent);
    assert.deepEqual([refused.status, refused.body.code], [400, 'invalid_webhook_url']);
    assert.equal((await assertInvariant(h.db, s.poolId)).sold, 0);
  } finally {
    badProfile.close();
  }
});

/** The platform links the buyer: registration, the buyer's consent (limits), code exchange with PKCE. */
async function link(shop: { shopId: string }) {
  const client = must({ ...(await registerClient(w.h.url)), headers: new Headers() }, 201);
  const setup = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 10_000, allowanceMinor: 15_000 });
  const { verifier, challenge } = pkce();
  const { url: back } = await authorizeWith(w, new Browser(w.h.url), authorizeUrl(client.client_id, challenge), setup);
  const tokens = await tokenRequest(w.h.url, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    client_id: client.client_id,
  });
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  return { setup, token: tokens.body.access_token as string };
}

test('a linked platform buys as the buyer’s agent within the limit and is refused beyond it', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 5000, discoverable: true });
  const profile = must(await restClient(w.h.url).get('/.well-known/ucp'), 200);
  assert.deepEqual(profile.ucp.capabilities['dev.ucp.common.identity_linking'][0].config, { scopes: {} });
  const { token } = await link(shop);
  const client = await mcpHttp(w.h, token);
  const meta = { 'ucp-agent': { profile: profileUrl.replace('/platform.json', '/checkout-only.json') } };
  const create = (quantity: number) =>
    callTool(client, 'create_checkout', { meta, checkout: { line_items: [{ item: { id: shop.tierId }, quantity }] } });
  const created = await create(2);
  assert.ok(created.ok, JSON.stringify(created));
  const done = await callTool(client, 'complete_checkout', {
    meta: { ...meta, 'idempotency-key': randomUUID() },
    id: created.output.id,
    checkout: instrument,
  });
  assert.ok(done.ok, JSON.stringify(done));
  assert.equal(done.output.status, 'completed', 'within the allowance (2 × 50.00 of 150.00)');
  // Beyond the allowance: UCP's MCP binding answers a JSON-RPC error carrying the spine's own code.
  const refused = await create(2).then(
    () => undefined,
    (err: unknown) => err as McpError,
  );
  assert.ok(refused instanceof McpError, String(refused));
  assert.equal((refused.data as { code: string }).code, 'allowance_exhausted');
  const quote = await callTool(client, 'quote', { tierId: shop.tierId, quantity: 2 });
  assert.ok(quote.ok, JSON.stringify(quote));
  const reserve = await callTool(client, 'reserve', { quoteId: quote.output.quoteId, idempotencyKey: randomUUID() });
  assert.equal(!reserve.ok && reserve.code, 'allowance_exhausted', 'the same code as the spine’s own reserve');
  await client.close();
  const c = await assertInvariant(w.h.db, shop.poolId);
  assert.deepEqual([c.sold, c.held], [2, 0]);
});

test('Get Order answers the order webhook’s body over REST and MCP; another shop’s order is 404', async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const api = restClient(h.url, s.apiKey);
  const body = { line_items: [{ item: { id: s.tierId }, quantity: 1 }] };
  const created = must(await api.post('/ucp/v1/checkout-sessions', body, AGENT), 201);
  const key = { ...AGENT, 'idempotency-key': randomUUID() };
  const done = must(await api.post(`/ucp/v1/checkout-sessions/${created.id}/complete`, instrument, key), 200);
  const sent = await nextOrderWebhook(rx.received.filter((r) => r.path === '/ucp/orders').length + 1);
  assert.deepEqual(must(await api.get(`/ucp/v1/orders/${done.order.id}`, AGENT), 200), sent);
  const client = await mcpInMemory(h, s.apiKey);
  const meta = { 'ucp-agent': { profile: profileUrl } };
  const viaMcp = await callTool(client, 'get_ucp_order', { meta, id: done.order.id });
  await client.close();
  assert.ok(viaMcp.ok, JSON.stringify(viaMcp));
  assert.deepEqual(viaMcp.output, sent);
  const foreign = await restClient(h.url, (await shopWithTier(h)).apiKey).get(`/ucp/v1/orders/${done.order.id}`, AGENT);
  assert.deepEqual([foreign.status, foreign.body.code], [404, 'not_found']);
  const unknown = await api.get(`/ucp/v1/orders/${created.id}`, AGENT);
  assert.deepEqual([unknown.status, unknown.body.code], [404, 'not_found']);
  const noOrder = { 'ucp-agent': `profile="${profileUrl.replace('/platform.json', '/checkout-only.json')}"` };
  const refused = await api.get(`/ucp/v1/orders/${done.order.id}`, noOrder);
  assert.deepEqual(
    [refused.status, refused.body.ucp.status, refused.body.messages[0].code],
    [200, 'error', 'capabilities_incompatible'],
  );
});
