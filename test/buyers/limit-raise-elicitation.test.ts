/**
 * MCP URL elicitation when an agent reaches its buyer's limit: a real SDK client that declared
 * `capabilities.elicitation.url` gets -32042 with the buyer page's URL, the buyer approves (or declines) through the
 * buyer API the page calls, and the agent's retried call proceeds (or gets its limit error with a hint).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  ElicitRequestSchema,
  UrlElicitationRequiredError,
  type ElicitRequestURLParams,
} from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from '../../src/protocols/mcp/server.ts';
import { buyerWithAgent, codeFor, merchantShop, must } from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';
import { callTool } from '../support/mcp.ts';
import { restClient } from '../support/rest.ts';

const w = worldPerFile();

/** A real client over Streamable HTTP; `elicits`: it declares URL elicitation and answers elicitation/create. */
async function agentClient(token: string, elicits: boolean): Promise<Client> {
  const client = new Client(
    { name: 'elicit-test', version: '0' },
    { capabilities: elicits ? { elicitation: { url: {} } } : {} },
  );
  if (elicits) client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept' }));
  const headers = { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', w.h.url), { requestInit: { headers } }));
  return client;
}

/** The URL elicitation a refused call raised (fails when the call did not raise one). */
async function elicitationOf(call: Promise<unknown>): Promise<ElicitRequestURLParams> {
  const err = await call.then(
    (r) => assert.fail(`expected -32042, got ${JSON.stringify(r)}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof UrlElicitationRequiredError, String(err));
  assert.equal(err.code, -32042);
  assert.equal(err.elicitations.length, 1);
  return err.elicitations[0]!;
}

const idOf = (url: string) => new URL(url).searchParams.get('request')!;

/** A quote (which holds nothing and checks no permission) and the reserve call on it, where the limits apply. */
async function reserveCall(client: Client, tierId: string, quantity = 1) {
  const q = await callTool(client, 'quote', { tierId, quantity });
  assert.ok(q.ok, JSON.stringify(q));
  return { name: 'reserve', arguments: { quoteId: q.output.quoteId as string } };
}

test('an agent over its per-purchase cap elicits the buyer page; after approval its retried call buys', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 4000 });
  const s = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 5000, allowanceMinor: 20_000 });
  const client = await agentClient(s.agentToken, true);
  try {
    const reserve = await reserveCall(client, shop.tierId, 2);
    const asked = await elicitationOf(client.callTool(reserve));
    assert.equal(asked.mode, 'url');
    assert.ok(asked.url.startsWith(`${w.h.url}/buyer/limit-raise?request=`), asked.url);
    const id = idOf(asked.url);
    assert.equal(asked.elicitationId, id);
    // A retry before the buyer answered elicits the same request again.
    assert.equal((await elicitationOf(client.callTool(reserve))).elicitationId, id);

    // Another buyer cannot see or answer it.
    const other = await buyerWithAgent(w, shop);
    const stranger = restClient(w.h.url, other.session);
    assert.equal((await stranger.get(`/v1/buyer/limit-raises/${id}`)).status, 404);
    const strangerCode = await codeFor(w, other.session, other.email, 'grant_permission');
    assert.equal((await stranger.post(`/v1/buyer/limit-raises/${id}/approve`, strangerCode)).status, 404);
    assert.equal((await stranger.post(`/v1/buyer/limit-raises/${id}/decline`, {})).status, 404);

    const buyer = restClient(w.h.url, s.session);
    const seen = must(await buyer.get(`/v1/buyer/limit-raises/${id}`), 200);
    assert.deepEqual(
      [seen.status, seen.reason, seen.amountMinor, seen.perPurchaseCapMinor, seen.proposedPerPurchaseCapMinor],
      ['pending', 'over_purchase_cap', 8000, 5000, 8000],
    );
    assert.equal(seen.agentId, s.agentId);
    // Approving needs the emailed code, as granting does.
    assert.equal((await buyer.post(`/v1/buyer/limit-raises/${id}/approve`, {})).status, 400);
    const proof = await codeFor(w, s.session, s.email, 'grant_permission');
    const approved = must(await buyer.post(`/v1/buyer/limit-raises/${id}/approve`, proof), 200);
    assert.equal(approved.status, 'approved');
    const again = await codeFor(w, s.session, s.email, 'grant_permission');
    const closed = await buyer.post(`/v1/buyer/limit-raises/${id}/approve`, again);
    assert.deepEqual([closed.status, closed.body.code], [409, 'limit_raise_closed']);
    const perms = must(await buyer.get('/v1/buyer/permissions'), 200).permissions;
    assert.equal(perms.find((p: any) => p.id === s.permission.id).perPurchaseCapMinor, 8000);

    const r = await callTool(client, 'reserve', reserve.arguments);
    assert.ok(r.ok, JSON.stringify(r));
    const id2 = r.output.reservation.id;
    const done = await callTool(client, 'confirm', { id: id2 }, { idempotencyKey: randomUUID() });
    assert.ok(done.ok, JSON.stringify(done));
    assert.equal(done.output.reservation.state, 'completed');
    assert.equal(done.output.order.tickets.length, 2);
  } finally {
    await client.close();
  }
});

test('a declined raise answers the limit error with a hint and asks nothing more', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 4000 });
  const s = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 5000, allowanceMinor: 5000 });
  const client = await agentClient(s.agentToken, true);
  try {
    const first = await callTool(client, 'quote', { tierId: shop.tierId, quantity: 1 });
    assert.ok(first.ok);
    const r = await callTool(client, 'reserve', { quoteId: first.output.quoteId }, { idempotencyKey: randomUUID() });
    assert.ok(r.ok);
    const paid = await callTool(client, 'confirm', { id: r.output.reservation.id }, { idempotencyKey: randomUUID() });
    assert.ok(paid.ok, JSON.stringify(paid));
    const reserve = await reserveCall(client, shop.tierId);
    const asked = await elicitationOf(client.callTool(reserve));
    const buyer = restClient(w.h.url, s.session);
    const seen = must(await buyer.get(`/v1/buyer/limit-raises/${idOf(asked.url)}`), 200);
    assert.deepEqual([seen.reason, seen.proposedAllowanceMinor], ['allowance_exhausted', 8000]);
    must(await buyer.post(`/v1/buyer/limit-raises/${idOf(asked.url)}/decline`, {}), 200);
    const refused = await client.callTool(reserve);
    assert.equal(refused.isError, true);
    const [hint, body] = (refused.content as { text: string }[]).map((c) => c.text);
    assert.match(hint!, /^allowance_exhausted: .*declined/);
    assert.equal(JSON.parse(body!).details.limitRaise.status, 'declined');
    const perms = must(await buyer.get('/v1/buyer/permissions'), 200).permissions;
    assert.equal(perms.find((p: any) => p.id === s.permission.id).allowanceMinor, 5000);
  } finally {
    await client.close();
  }
});

test('a client without URL elicitation gets the limit error as before; an unanswered request expires', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 4000 });
  const s = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 3000, allowanceMinor: 20_000 });
  const plain = await agentClient(s.agentToken, false);
  try {
    const reserve = await reserveCall(plain, shop.tierId);
    const refused = await callTool(plain, 'reserve', reserve.arguments);
    assert.equal(!refused.ok && refused.code, 'over_purchase_cap');
    assert.equal(!refused.ok && refused.error.details.limitRaise, undefined);
  } finally {
    await plain.close();
  }
  // One client per server (stdio, in memory): its own initialize decides.
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createMcpServer(w.h.app.orchestrator, s.agentToken, { surface: 'mcp' });
  await server.connect(serverSide);
  const local = new Client({ name: 'elicit-test', version: '0' }, { capabilities: { elicitation: { url: {} } } });
  await local.connect(clientSide);
  try {
    const asked = await elicitationOf(local.callTool(await reserveCall(local, shop.tierId)));
    w.h.clock.advance(16 * 60_000);
    const buyer = restClient(w.h.url, s.session);
    assert.equal(must(await buyer.get(`/v1/buyer/limit-raises/${idOf(asked.url)}`), 200).status, 'expired');
    const proof = await codeFor(w, s.session, s.email, 'grant_permission');
    const late = await buyer.post(`/v1/buyer/limit-raises/${idOf(asked.url)}/approve`, proof);
    assert.deepEqual([late.status, late.body.code], [409, 'limit_raise_closed']);
    const anew = await elicitationOf(local.callTool(await reserveCall(local, shop.tierId)));
    assert.notEqual(anew.elicitationId, asked.elicitationId);
  } finally {
    await local.close();
    await server.close();
  }
});
