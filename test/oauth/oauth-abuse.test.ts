/**
 * OAuth abuse (issue #32): registration bounded and expiring, redirects only over https or on loopback, a missing scope
 * given the default, a consent that leaves nothing behind unless it ends in a grant, one code and one refresh token
 * used once under concurrency, and a refused refresh that leaves the grant alone.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pruneExpired } from '../../src/storage/retention.ts';
import { buyerWithAgent, merchantShop, must, startWorld, type MerchantShop, type World } from '../support/buyers.ts';
import { count } from '../support/spine.ts';
import { restClient } from '../support/rest.ts';
import { holdRows, poll } from '../support/row-lock.ts';
import { hashToken } from '../../src/kernel/tokens.ts';
import {
  authorization,
  authorizeUrl,
  authorizeWith,
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
before(async () => {
  w = await startWorld();
  shop = await merchantShop(w.h, { priceMinor: 5000, discoverable: true });
});
after(async () => {
  await w?.close();
});

/** A buyer authorizes `clientId` through the whole step; returns the code's exchange answer and what was created. */
async function authorizeThrough(clientId: string, extra: Record<string, string> = {}, drop: string[] = []) {
  const buyer = await buyerWithAgent(w, shop);
  const { verifier, challenge } = pkce();
  const q = new URL(authorizeUrl(clientId, challenge, extra), w.h.url);
  for (const name of drop) q.searchParams.delete(name);
  const granted = await authorizeWith(w, new Browser(w.h.url), q.pathname + q.search, buyer);
  assert.equal(granted.url.searchParams.get('error'), null, granted.url.href);
  const code = granted.url.searchParams.get('code')!;
  const tokens = await tokenRequest(w.h.url, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
  });
  return { buyer, granted, code, verifier, tokens };
}

const clients = async () =>
  Number((await w.h.db.execute<{ n: string }>(`select count(*) as n from oauth_records where kind = 'Client'`))[0]!.n);

test('issue #32 (5): registration refuses oversized metadata and plain-http redirects off loopback, and stores nothing', async () => {
  const before = await clients();
  const refused = [
    [{ client_name: 'x'.repeat(54_000) }, 'invalid_client_metadata'],
    // RFC 7591 §3.2.2: a problem with the redirect URIs is invalid_redirect_uri.
    [{ redirect_uris: Array.from({ length: 1500 }, (_, i) => `https://host.example/cb/${i}`) }, 'invalid_redirect_uri'],
    [{ redirect_uris: [`https://host.example/${'a'.repeat(3000)}`] }, 'invalid_redirect_uri'],
    [{ client_uri: `https://host.example/${'a'.repeat(3000)}` }, 'invalid_client_metadata'],
    [{ contacts: Array.from({ length: 11 }, (_, i) => `ops${i}@host.example`) }, 'invalid_client_metadata'],
    [{ redirect_uris: ['http://evil.example/cb'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['http://127.0.0.1:1/cb', 'http://10.0.0.1/cb'] }, 'invalid_redirect_uri'],
  ] as const;
  for (const [extra, code] of refused) {
    const r = await registerClient(w.h.url, extra);
    assert.equal(r.status, 400, JSON.stringify(r.body).slice(0, 300));
    assert.equal(r.body.error, code, JSON.stringify(r.body).slice(0, 300));
  }
  assert.equal(await clients(), before, 'no refused client stored');
  for (const uri of [
    'https://host.example/cb',
    'http://localhost:33418/cb',
    'http://127.0.0.1:1/cb',
    'http://[::1]:8080/cb',
  ]) {
    must({ ...(await registerClient(w.h.url, { redirect_uris: [uri] })), headers: new Headers() }, 201);
  }
  assert.equal(await clients(), before + 4);
});

test('issue #32 (5): a client that never completed a grant expires and the retention pass deletes it; one with a grant stays', async () => {
  const expiry = (clientId: string) =>
    w.h.db.execute<{ expires_at: Date | null }>(
      `select expires_at from oauth_records where kind = 'Client' and id_hash = ?`,
      [hashToken(clientId)],
    );
  const unused = must({ ...(await registerClient(w.h.url)), headers: new Headers() }, 201);
  const [unusedRow] = await expiry(unused.client_id);
  assert.ok(unusedRow?.expires_at, 'an unused client expires');
  const hours = (new Date(unusedRow.expires_at).getTime() - Date.now()) / 3_600_000;
  assert.ok(hours > 23 && hours <= 24, `expires in ${hours} h`);
  const used = must({ ...(await registerClient(w.h.url)), headers: new Headers() }, 201);
  await authorizeThrough(used.client_id);
  const [usedRow] = await expiry(used.client_id);
  assert.ok(usedRow, 'the used client is stored');
  assert.equal(usedRow.expires_at, null, 'a client that completed a grant is kept');
  // Two days on, the retention pass deletes the unused client: authorizing with it is then invalid_client.
  await pruneExpired(w.h.db, new Date(Date.now() + 49 * 3_600_000));
  assert.equal((await expiry(unused.client_id)).length, 0);
  assert.equal((await expiry(used.client_id)).length, 1);
  const res = await new Browser(w.h.url).fetch(authorizeUrl(unused.client_id, pkce().challenge));
  assert.equal(res.status, 400);
  assert.match(await res.text(), /invalid_client/);
});

test('issue #32 (6): an authorization request without scope gets the default scope and ends in tokens, not access_denied', async () => {
  const client = must({ ...(await registerClient(w.h.url)), headers: new Headers() }, 201);
  const { tokens } = await authorizeThrough(client.client_id, {}, ['scope']);
  assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
  assert.equal(tokens.body.scope, 'tessera:agent');
  const mcp = await fetch(new URL('/mcp', w.h.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${tokens.body.access_token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  assert.equal(mcp.status, 200);
});

test('issue #32 (6): the consent is one outcome: a refused or repeated end of the step creates nothing, concurrent ones create one', async () => {
  const client = must({ ...(await registerClient(w.h.url)), headers: new Headers() }, 201);
  const buyer = await buyerWithAgent(w, shop);
  const browser = new Browser(w.h.url);
  const uid = await openInteraction(browser, authorizeUrl(client.client_id, pkce().challenge));
  const owned = async () => ({
    agents: await count(
      w.h.db,
      `from agents where buyer_id = (select buyer_id from permissions where id = ?) and status = 'active'`,
      [buyer.permission.id],
    ),
    permissions: await count(
      w.h.db,
      'from permissions where buyer_id = (select buyer_id from permissions where id = ?) and revoked_at is null',
      [buyer.permission.id],
    ),
  });
  const before = await owned();
  // A wrong code: refused, nothing created, and the step can still be finished.
  const wrong = authorization(w, buyer);
  const proof = await codeFor(w, buyer, wrong);
  const refused = await completeInteraction(browser, uid, buyer.session, {
    ...wrong,
    ...proof,
    code: proof.code === '000000' ? '111111' : '000000',
  });
  assert.equal(refused.status, 422, JSON.stringify(await refused.clone().json()));
  assert.deepEqual(await owned(), before);
  // Five ends of the same step at once, each with its own valid code: exactly one creates an agent and a grant.
  const attempts = [];
  for (let i = 0; i < 5; i++) {
    const details = authorization(w, buyer);
    attempts.push({ ...details, ...(await codeFor(w, buyer, details)) });
  }
  const answers = await Promise.all(attempts.map((body) => completeInteraction(browser, uid, buyer.session, body)));
  const statuses = answers.map((r) => r.status);
  assert.deepEqual(statuses.filter((s) => s === 200).length, 1, statuses.join(','));
  assert.ok(
    statuses.every((s) => s === 200 || s === 400),
    statuses.join(','),
  );
  assert.deepEqual(await owned(), { agents: before.agents + 1, permissions: before.permissions + 1 });
  // Once finished, another end of the step creates nothing either.
  const late = authorization(w, buyer);
  const again = await completeInteraction(browser, uid, buyer.session, { ...late, ...(await codeFor(w, buyer, late)) });
  assert.equal(again.status, 400);
  assert.deepEqual(await owned(), { agents: before.agents + 1, permissions: before.permissions + 1 });
  // The one that succeeded ends in a code for the client.
  const ok = answers[statuses.indexOf(200)]!;
  const back = await browser.follow(((await ok.json()) as { redirectTo: string }).redirectTo);
  assert.ok(back.url.searchParams.get('code'), back.url.href);
});

test('issue #32 (6): an authorization whose grant cannot be recorded is withdrawn: no agent, permission or card left', async () => {
  const client = must({ ...(await registerClient(w.h.url)), headers: new Headers() }, 201);
  const buyer = await buyerWithAgent(w, shop);
  const browser = new Browser(w.h.url);
  const uid = await openInteraction(browser, authorizeUrl(client.client_id, pkce().challenge));
  const api = restClient(w.h.url, buyer.session);
  // A card just entered in the provider's form, which the authorization saves.
  const setup = must(await api.post('/v1/buyer/card-setups', {}), 201);
  const entered = { paymentMethod: 'pm_sandbox_mastercard' };
  must(await api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, entered), 200);
  const details = authorization(w, buyer, { instrumentId: undefined, setupId: setup.setupId });
  const proof = await codeFor(w, buyer, details);
  const live = async () => ({
    agents: (await api.get('/v1/buyer/agents')).body.agents.length,
    permissions: (await api.get('/v1/buyer/permissions')).body.permissions.filter(
      (p: { status: string }) => p.status === 'active',
    ).length,
    cards: (await api.get('/v1/buyer/instruments')).body.instruments.length,
  });
  const before = await live();
  // Hold the code's challenge so the step waits inside authorize_agent; meanwhile the interaction ends (deleted, as
  // its expiry would), so the grant cannot be recorded once the agent, permission and card exist.
  const lock = 'select 1 from verification_challenges where id = $1 for update';
  const holder = await holdRows(w.h.dbUrl, lock, [proof.challengeId]);
  let answer: Response;
  try {
    const done = completeInteraction(browser, uid, buyer.session, { ...details, ...proof });
    await poll(async () => (await holder.waiters()) >= 1);
    const ended = `delete from oauth_records where kind = 'Interaction' and id_hash = $1`;
    await holder.client.query(ended, [hashToken(uid)]);
    await holder.release();
    answer = await done;
  } finally {
    await holder.end();
  }
  const body = (await answer.json()) as { code: string };
  assert.equal(answer.status, 400, JSON.stringify(body));
  assert.equal(body.code, 'oauth_interaction_invalid');
  assert.deepEqual(await live(), before, 'nothing the authorization created is left active');
});

/** tools/list on /mcp with `token`: 200 while the token is live, 401 once it is not. */
async function mcpStatus(token: string): Promise<number> {
  const res = await fetch(new URL('/mcp', w.h.url), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await res.arrayBuffer();
  return res.status;
}

/** A refresh-token grant at the token endpoint. */
const refreshWith = (clientId: string, refreshToken: string, extra: Record<string, string> = {}) =>
  tokenRequest(w.h.url, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, ...extra });

/**
 * Fires `n` requests at once while the stored record `kind`/`value` is locked from outside, so every one of them has
 * read it (unused) and waits to spend it before any may: the race happens every time, not only when timing allows.
 */
async function race<T>(kind: string, value: string, n: number, fire: () => Promise<T>): Promise<T[]> {
  const lock = 'select 1 from oauth_records where kind = $1 and id_hash = $2 for update';
  const holder = await holdRows(w.h.dbUrl, lock, [kind, hashToken(value)]);
  try {
    const answers = Promise.all(Array.from({ length: n }, fire));
    await poll(async () => (await holder.waiters()) >= n);
    await holder.release();
    return await answers;
  } finally {
    await holder.end();
  }
}

test('issue #32 (Low): of ten concurrent exchanges of one code exactly one gets tokens, and the reuse revokes them', async () => {
  const client = must({ ...(await registerClient(w.h.url)), headers: new Headers() }, 201);
  const buyer = await buyerWithAgent(w, shop);
  const { verifier, challenge } = pkce();
  const { url } = await authorizeWith(w, new Browser(w.h.url), authorizeUrl(client.client_id, challenge), buyer);
  const code = url.searchParams.get('code')!;
  const answers = await race('AuthorizationCode', code, 10, () =>
    tokenRequest(w.h.url, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: client.client_id,
    }),
  );
  const won = answers.filter((a) => a.status === 200);
  assert.equal(won.length, 1, answers.map((a) => `${a.status} ${a.body?.error ?? ''}`).join(', '));
  assert.ok(answers.every((a) => a.status === 200 || a.body.error === 'invalid_grant'));
  // RFC 6749 §4.1.2: the code was used more than once, so what it issued is revoked.
  assert.equal(await mcpStatus(won[0]!.body.access_token), 401);
  const refreshed = await refreshWith(client.client_id, won[0]!.body.refresh_token);
  assert.equal(refreshed.body.error, 'invalid_grant');
});

test('issue #32 (Low): of ten concurrent refreshes of one token exactly one succeeds; the chain does not fork', async () => {
  const client = must({ ...(await registerClient(w.h.url)), headers: new Headers() }, 201);
  const { tokens } = await authorizeThrough(client.client_id);
  assert.equal(tokens.status, 200);
  const refreshToken = tokens.body.refresh_token as string;
  const answers = await race('RefreshToken', refreshToken, 10, () => refreshWith(client.client_id, refreshToken));
  const won = answers.filter((a) => a.status === 200);
  assert.equal(won.length, 1, answers.map((a) => `${a.status} ${a.body?.error ?? ''}`).join(', '));
  assert.ok(answers.every((a) => a.status === 200 || a.body.error === 'invalid_grant'));
  // The reuse ended the grant: no chain lives on, the winner's included.
  const next = await refreshWith(client.client_id, won[0]!.body.refresh_token);
  assert.equal(next.body.error, 'invalid_grant');
  assert.equal(await mcpStatus(won[0]!.body.access_token), 401);
});

test('issue #32 (Low): a refresh naming another resource is invalid_target and leaves the grant as it was', async () => {
  const client = must({ ...(await registerClient(w.h.url)), headers: new Headers() }, 201);
  const { tokens } = await authorizeThrough(client.client_id);
  const refresh = (extra: Record<string, string> = {}) =>
    refreshWith(client.client_id, tokens.body.refresh_token, extra);
  const foreign = await refresh({ resource: 'https://evil.example/mcp' });
  assert.equal(foreign.status, 400);
  assert.equal(foreign.body.error, 'invalid_target');
  assert.equal(await mcpStatus(tokens.body.access_token), 200, 'the access token still works');
  const ok = await refresh();
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(await mcpStatus(ok.body.access_token), 200);
});
