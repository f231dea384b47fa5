/**
 * MCP authorization over plain HTTP, the authorize step: bad authorization requests get the RFC error codes (never a
 * 500), the step grants only what the one code confirmed, and a buyer who declines (oauth-server.test.ts has the
 * metadata, the tokens, refresh, revocation and a second server).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buyerWithAgent, merchantShop, startWorld, type MerchantShop, type World } from '../support/buyers.ts';
import { rmSync } from 'node:fs';
import { makeKey, writeTrustList } from '../support/independent-signer.ts';
import { count } from '../support/spine.ts';
import {
  authorization,
  authorizeUrl,
  Browser,
  codeFor,
  completeInteraction,
  openInteraction,
  pkce,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from './support.ts';

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

test('bad authorization requests get RFC error codes, never a 500', async () => {
  const client = (await registerClient(w.h.url)).body;
  const { challenge } = pkce();
  const browser = new Browser(w.h.url);
  // Unknown client and a redirect URI the client did not register: no redirect, an error page naming the code.
  for (const [url, code] of [
    [authorizeUrl('no-such-client', challenge), 'invalid_client'],
    [
      authorizeUrl(client.client_id, challenge, { redirect_uri: 'http://127.0.0.1:1/elsewhere' }),
      'invalid_redirect_uri',
    ],
  ] as const) {
    const res = await browser.fetch(url);
    assert.equal(res.status, 400, url);
    assert.match(await res.text(), new RegExp(code));
  }
  // Missing PKCE and plain PKCE: back to the client with invalid_request.
  for (const extra of [{}, { code_challenge: 'x'.repeat(43), code_challenge_method: 'plain' }] as Record<
    string,
    string
  >[]) {
    const res = await browser.fetch(authorizeUrl(client.client_id, undefined, extra));
    assert.equal(res.status, 303);
    const to = new URL(res.headers.get('location')!);
    assert.equal(to.origin + to.pathname, REDIRECT_URI);
    assert.equal(to.searchParams.get('error'), 'invalid_request');
  }
  // Token endpoint: unknown client, unknown code.
  const unknown = await tokenRequest(w.h.url, {
    grant_type: 'authorization_code',
    code: 'nope',
    code_verifier: 'x'.repeat(43),
    redirect_uri: REDIRECT_URI,
    client_id: 'no-such-client',
  });
  assert.equal(unknown.status, 401);
  assert.equal(unknown.body.error, 'invalid_client');
  const badCode = await tokenRequest(w.h.url, {
    grant_type: 'authorization_code',
    code: 'nope',
    code_verifier: 'x'.repeat(43),
    redirect_uri: REDIRECT_URI,
    client_id: client.client_id,
  });
  assert.equal(badCode.status, 400);
  assert.equal(badCode.body.error, 'invalid_grant');
  // Registration of a confidential client is refused: public clients with PKCE only.
  const confidential = await registerClient(w.h.url, { token_endpoint_auth_method: 'client_secret_basic' });
  assert.equal(confidential.status, 400);
  assert.equal(confidential.body.error, 'invalid_client_metadata');
});

test('the authorize step grants only what the one code confirmed: an existing permission, another buyer’s code and a stale interaction are refused', async () => {
  const client = (await registerClient(w.h.url)).body;
  const a = await buyerWithAgent(w, shop);
  const b = await buyerWithAgent(w, shop);
  const browser = new Browser(w.h.url);
  const uid = await openInteraction(browser, authorizeUrl(client.client_id, pkce().challenge));
  const agents = async () =>
    count(w.h.db, 'from agents where buyer_id in (select buyer_id from permissions where id in (?, ?))', [
      a.permission.id,
      b.permission.id,
    ]);
  const before = await agents();
  // Issue #32: a live permission of the buyer's own, named without the code, is not handed to the client.
  const named = await completeInteraction(browser, uid, a.session, { permissionId: a.permission.id });
  assert.equal(named.status, 400);
  assert.equal(((await named.json()) as any).code, 'unknown_field');
  // Buyer b's code does not confirm buyer a's authorization.
  const details = authorization(w, a);
  const foreign = await completeInteraction(browser, uid, a.session, {
    ...details,
    ...(await codeFor(w, b, authorization(w, b))),
  });
  assert.ok(foreign.status >= 400 && foreign.status < 500, String(foreign.status));
  // The right details and code, from another browser (no interaction cookie): refused before anything is created.
  const proof = await codeFor(w, a, details);
  const noCookie = await completeInteraction(new Browser(w.h.url), uid, a.session, { ...details, ...proof });
  assert.equal(noCookie.status, 400);
  assert.equal(((await noCookie.json()) as any).code, 'oauth_interaction_invalid');
  assert.equal(await agents(), before, 'no agent created by a refused step');
  // The same code then completes it in the right browser, once.
  const done = await completeInteraction(browser, uid, a.session, { ...details, ...proof });
  assert.equal(done.status, 200, JSON.stringify(await done.clone().json()));
  assert.equal(await agents(), before + 1);
});

test('the buyer declines: the client gets access_denied with its state', async () => {
  const client = (await registerClient(w.h.url)).body;
  const browser = new Browser(w.h.url);
  const start = await browser.follow(authorizeUrl(client.client_id, pkce().challenge), /^\/buyer\//);
  const uid = start.url.searchParams.get('interaction');
  const details = await browser.fetch(`/oauth/interaction/${uid}/details`);
  assert.deepEqual(await details.json(), { clientName: 'Test MCP host', redirectOrigin: new URL(REDIRECT_URI).origin });
  const res = await browser.fetch(`/oauth/interaction/${uid}/abort`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.equal(res.status, 200);
  const back = await browser.follow(((await res.json()) as { redirectTo: string }).redirectTo);
  assert.equal(back.url.origin + back.url.pathname, REDIRECT_URI);
  assert.equal(back.url.searchParams.get('error'), 'access_denied');
  assert.equal(back.url.searchParams.get('state'), 'st-1');
});
