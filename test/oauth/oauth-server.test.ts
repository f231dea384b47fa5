/**
 * MCP authorization over plain HTTP: the 401 and the metadata documents, the authorization-code flow with PKCE and
 * dynamic registration, tokens bound to the MCP endpoint, refresh rotation, revocation, and the RFC error codes
 * for bad requests (never a 500).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buyerWithAgent, must, merchantShop, startWorld, type MerchantShop, type World } from '../support/buyers.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/kernel/config.ts';
import { Database } from '../../src/storage/database.ts';
import { restClient } from '../support/rest.ts';
import { rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { makeKey, writeTrustList } from '../support/independent-signer.ts';
import { mcpHttp, callTool } from '../support/mcp.ts';
import { assertInvariant } from '../support/invariant.ts';
import { count } from '../support/spine.ts';
import { signedMandate } from '../support/vic.ts';
import { authorizeUrl, authorizeWith, Browser, pkce, REDIRECT_URI, registerClient, tokenRequest } from './support.ts';
import { serverEnvFor } from '../support/database.ts';

let w: World;
let shop: MerchantShop;
/** A network the server trusts, so a mandate it signs verifies (the OAuth token must still not buy under it). */
const network = makeKey('EdDSA');
const trust = writeTrustList([network]);
before(async () => {
  w = await startWorld({ MANDATE_TRUST_LIST: trust.path });
  shop = await merchantShop(w.h, { priceMinor: 5000, discoverable: true });
});
after(async () => {
  await w?.close();
  rmSync(trust.dir, { recursive: true, force: true });
});

/** A JSON-RPC tools/list to /mcp with `token`. */
async function listTools(token: string | undefined) {
  const res = await fetch(new URL('/mcp', w.h.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

/**
 * A registered client, a buyer with an agent of its own (`setup`), the agent and permission the authorize step created
 * for the client (`granted`), and a full token answer.
 */
async function authorized() {
  const client = must({ ...(await registerClient(w.h.url)), headers: new Headers() }, 201);
  const setup = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 10_000, allowanceMinor: 15_000 });
  const { verifier, challenge } = pkce();
  const browser = new Browser(w.h.url);
  const { url: back, ...granted } = await authorizeWith(w, browser, authorizeUrl(client.client_id, challenge), setup);
  assert.equal(back.searchParams.get('state'), 'st-1');
  const code = back.searchParams.get('code')!;
  const tokens = await tokenRequest(w.h.url, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    client_id: client.client_id,
  });
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  return { client, setup, granted, code, verifier, tokens: tokens.body };
}

test('/mcp without a valid bearer answers 401 naming the protected-resource metadata', async () => {
  for (const token of [undefined, 'junk', 'A'.repeat(43), 'tsk_unknown']) {
    const r = await listTools(token);
    assert.equal(r.status, 401, String(token));
    assert.equal(
      r.headers
        .get('www-authenticate')
        ?.startsWith(
          `Bearer resource_metadata="${w.h.url}/.well-known/oauth-protected-resource/mcp", scope="tessera:agent"`,
        ),
      true,
    );
  }
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    const prm = must(await restClient(w.h.url).get(path), 200);
    assert.equal(prm.resource, `${w.h.url}/mcp`);
    assert.deepEqual(prm.authorization_servers, [w.h.url]);
  }
});

test('the authorization server metadata (RFC 8414) offers code + PKCE S256, registration and revocation', async () => {
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
    const m = must(await restClient(w.h.url).get(path), 200);
    assert.equal(m.issuer, w.h.url);
    assert.deepEqual(m.code_challenge_methods_supported, ['S256']);
    assert.deepEqual(m.response_types_supported, ['code']);
    assert.deepEqual(m.token_endpoint_auth_methods_supported, ['none']);
    assert.equal(m.registration_endpoint, `${w.h.url}/oauth/register`);
    assert.equal(m.revocation_endpoint, `${w.h.url}/oauth/revoke`);
    assert.ok(m.grant_types_supported.includes('refresh_token'));
    // Client ID metadata documents (test/oauth/client-id-documents.test.ts).
    assert.equal(m.client_id_metadata_document_supported, true);
  }
});

test('an access token acts as the authorized agent on /mcp only, and not on REST', async () => {
  const { tokens, setup } = await authorized();
  assert.equal(tokens.token_type, 'Bearer');
  assert.ok(tokens.refresh_token);
  assert.equal(tokens.scope, 'tessera:agent');
  const listed = await listTools(tokens.access_token);
  assert.equal(listed.status, 200);
  const names = listed.body.result.tools.map((t: { name: string }) => t.name);
  assert.ok(names.includes('quote') && names.includes('confirm') && !names.includes('create_api_key'));
  // The audience is the MCP endpoint: REST refuses the token.
  const rest = await restClient(w.h.url, tokens.access_token).get('/v1/ticketing/orders');
  assert.equal(rest.status, 401);
  // The agent's own token is unchanged.
  assert.equal((await listTools(setup.agentToken)).status, 200);
});

test('an access token acts inside its permission only: it may not buy under a signed mandate, which its agent’s own token may', async () => {
  const { tokens, setup } = await authorized();
  // purchase_initiate declares `outsidePermission`: the mandate, not the buyer's permission, would be the spend
  // authority.
  const listed = await listTools(tokens.access_token);
  const names = listed.body.result.tools.map((t: { name: string }) => t.name);
  assert.ok(
    names.includes('reserve') && !names.includes('purchase_initiate'),
    'the tool is not offered to the OAuth token',
  );
  const client = await mcpHttp(w.h, tokens.access_token);
  try {
    const q = await callTool(client, 'quote', { tierId: shop.tierId, quantity: 1 });
    assert.ok(q.ok, JSON.stringify(q));
    const mandate = signedMandate({ h: w.h, key: network, close: async () => undefined }, shop.shopId);
    const refused = await callTool(client, 'purchase_initiate', {
      quoteId: q.output.quoteId,
      mandate: { payload: mandate.payload, signature: mandate.signature },
      idempotencyKey: randomUUID(),
    });
    assert.equal(!refused.ok && refused.code, 'forbidden', JSON.stringify(refused));
    // Nothing was held, charged or spent.
    assert.equal(await count(w.h.db, 'from reservations where quote_id = ?', [q.output.quoteId]), 0);
    assert.equal(await count(w.h.db, 'from mandate_jtis where jti = ?', [mandate.artefact.jti]), 0);
    await assertInvariant(w.h.db, shop.poolId);
    // An agent's own credential (not bound to one permission) may: the declaration is about the token.
    const own = await mcpHttp(w.h, setup.agentToken);
    try {
      const q2 = await callTool(own, 'quote', { tierId: shop.tierId, quantity: 1 });
      assert.ok(q2.ok, JSON.stringify(q2));
      const paid = await callTool(own, 'purchase_initiate', {
        quoteId: q2.output.quoteId,
        mandate: { payload: mandate.payload, signature: mandate.signature },
        idempotencyKey: randomUUID(),
      });
      assert.ok(paid.ok, JSON.stringify(paid));
    } finally {
      await own.close();
    }
  } finally {
    await client.close();
  }
});

test('a replayed code is invalid_grant, and the tokens it issued stop working', async () => {
  const { client, code, verifier, tokens } = await authorized();
  const again = await tokenRequest(w.h.url, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    client_id: client.client_id,
  });
  assert.equal(again.status, 400);
  assert.equal(again.body.error, 'invalid_grant');
  assert.equal((await listTools(tokens.access_token)).status, 401);
});

test('refresh tokens rotate: the used one is refused afterwards', async () => {
  const { client, tokens } = await authorized();
  const next = await tokenRequest(w.h.url, {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
    client_id: client.client_id,
  });
  assert.equal(next.status, 200, JSON.stringify(next.body));
  assert.notEqual(next.body.refresh_token, tokens.refresh_token);
  assert.equal((await listTools(next.body.access_token)).status, 200);
  const old = await tokenRequest(w.h.url, {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
    client_id: client.client_id,
  });
  assert.equal(old.status, 400);
  assert.equal(old.body.error, 'invalid_grant');
});

test('the revocation endpoint (RFC 7009) ends an access token at once', async () => {
  const { client, tokens } = await authorized();
  const r = await tokenRequest(w.h.url, { token: tokens.access_token, client_id: client.client_id }, '/oauth/revoke');
  assert.equal(r.status, 200);
  assert.equal((await listTools(tokens.access_token)).status, 401);
  // The grant ends with it (oidc-provider's revocation; docs/oauth.md): its refresh token is refused too.
  const refresh = await tokenRequest(w.h.url, {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
    client_id: client.client_id,
  });
  assert.deepEqual([refresh.status, refresh.body.error], [400, 'invalid_grant']);
});

test('revoking the permission or pausing the agent in the buyer API makes the token useless on the next call', async () => {
  const { tokens, setup, granted, client } = await authorized();
  const buyer = restClient(w.h.url, setup.session);
  must(await buyer.post(`/v1/buyer/agents/${granted.agentId}/pause`), 200);
  assert.equal((await listTools(tokens.access_token)).status, 401);
  must(await buyer.post(`/v1/buyer/agents/${granted.agentId}/resume`), 200);
  assert.equal((await listTools(tokens.access_token)).status, 200);
  must(await buyer.post(`/v1/buyer/permissions/${granted.permissionId}/revoke`, {}), 200);
  assert.equal((await listTools(tokens.access_token)).status, 401);
  // Nor can the client refresh its way back in.
  const refreshed = await tokenRequest(w.h.url, {
    grant_type: 'refresh_token',
    refresh_token: tokens.refresh_token,
    client_id: client.client_id,
  });
  assert.equal(refreshed.status, 400);
  assert.equal(refreshed.body.error, 'invalid_grant');
});

test('a second server on the same database (its own pool and provider) honours the first one’s tokens and rotates them', async () => {
  const { client, tokens } = await authorized();
  // Another server: same database and public URL, its own connection pool, provider, cookie keys and port.
  const db = await Database.open(w.h.dbUrl);
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    ...serverEnvFor(w.h.dbUrl),
    PUBLIC_URL: w.h.url,
    RATE_LIMIT_PER_MINUTE: '100000',
    SWEEP_INTERVAL_MS: '0',
    SANDBOX_DISPATCH_MS: '0',
    WEBHOOK_DISPATCH_MS: '0',
  });
  const other = await createApp(config, db, { clock: w.h.clock, log: pino({ level: 'silent' }) });
  const listener = other.koa.callback();
  // Koa's listener answers its own errors and never rejects.
  const server = createServer((req, res) => void listener(req, res));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const mcp = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${tokens.access_token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(mcp.status, 200);
    const next = await tokenRequest(base, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    // Back on the first server: the new access token works; the rotated-away refresh token is refused, and its replay
    // revokes the whole grant (reuse detection), the new tokens included.
    assert.equal((await listTools(next.body.access_token)).status, 200);
    const old = await tokenRequest(w.h.url, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
    });
    assert.equal(old.body.error, 'invalid_grant');
    assert.equal((await listTools(next.body.access_token)).status, 401);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((ok) => server.close(() => ok()));
    await other.close();
    await db.close();
  }
});
