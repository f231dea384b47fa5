import { test } from 'node:test';
import assert from 'node:assert/strict';
import { restClient } from '../support/rest.ts';
import { codeFor, createAgent, limits, merchantShop, must, newEmail, saveCard, signIn } from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';
import { verifies } from '../support/requirements.ts';

const w = worldPerFile();

async function mint(apiKey: string, merchantId: string, email: string, extra: Record<string, unknown> = {}) {
  return restClient(w.h.url, apiKey).post('/v1/integration/buyer-sessions', { merchantId, email, ...extra });
}

test(`${verifies('SPEC-5.5-emailed-code')}a full session creates an agent only after the emailed code`, async () => {
  const email = newEmail();
  const session = await signIn(w, email);
  const api = restClient(w.h.url, session);
  const missing = await api.post('/v1/buyer/agents', { name: 'Agent' });
  assert.equal(missing.status, 400, 'challengeId and code are required fields');
  const before = w.box.count(email);
  const asked = must(await api.post('/v1/buyer/verification-codes', { purpose: 'create_agent' }), 201);
  assert.equal(w.box.count(email), before + 1);
  assert.equal(new Date(asked.expiresAt).getTime() - w.h.clock.now().getTime(), 10 * 60_000);
  const mail = w.box.last(email);
  assert.equal(mail.subject, 'Your verification code');
  const code = /\b(\d{6})\b/.exec(mail.text)![1]!;
  const created = must(
    await api.post('/v1/buyer/agents', { name: 'Agent', challengeId: asked.challengeId, code }),
    201,
  );
  assert.match(created.token, /^tag_/);
  const reused = await api.post('/v1/buyer/agents', { name: 'Again', challengeId: asked.challengeId, code });
  assert.equal(reused.status, 422);
  assert.equal(reused.body.code, 'verification_code_expired', 'a code is single use');
  const [row] = await w.h.db.execute<{ code_hash: string }>(
    'select code_hash from verification_challenges where id = ?',
    [asked.challengeId],
  );
  assert.notEqual(row!.code_hash, code);
  assert.match(row!.code_hash, /^[0-9a-f]{64}$/, 'stored as an HMAC');
});

test('wrong codes exhaust the challenge after five attempts, even for the right code afterwards', async () => {
  const email = newEmail();
  const session = await signIn(w, email);
  const api = restClient(w.h.url, session);
  const proof = await codeFor(w, session, email, 'create_agent');
  const wrong = proof.code === '000000' ? '111111' : '000000';
  for (let left = 4; left >= 1; left--) {
    const res = await api.post('/v1/buyer/agents', { name: 'A', challengeId: proof.challengeId, code: wrong });
    assert.equal(res.status, 422);
    assert.equal(res.body.code, 'verification_code_invalid');
    assert.equal(res.body.details.attemptsLeft, left);
  }
  const fifth = await api.post('/v1/buyer/agents', { name: 'A', challengeId: proof.challengeId, code: wrong });
  assert.equal(fifth.body.code, 'verification_attempts_exhausted');
  const right = await api.post('/v1/buyer/agents', { name: 'A', ...proof });
  assert.equal(right.body.code, 'verification_attempts_exhausted');
  assert.deepEqual(must(await api.get('/v1/buyer/agents'), 200).agents, []);
});

test('a code expires after 10 minutes and is bound to its purpose and buyer', async () => {
  const email = newEmail();
  const session = await signIn(w, email);
  const api = restClient(w.h.url, session);
  const forAgent = await codeFor(w, session, email, 'create_agent');
  const otherEmail = newEmail();
  const other = restClient(w.h.url, await signIn(w, otherEmail));
  assert.equal(
    (await other.post('/v1/buyer/agents', { name: 'A', ...forAgent })).body.code,
    'verification_code_invalid',
    'another buyer',
  );
  const setupCode = await codeFor(w, session, email, 'raise_card_cap');
  assert.equal(
    (await api.post('/v1/buyer/agents', { name: 'A', ...setupCode })).body.code,
    'verification_code_invalid',
    'another purpose',
  );
  w.h.clock.advance(10 * 60_000 + 1);
  assert.equal((await api.post('/v1/buyer/agents', { name: 'A', ...forAgent })).body.code, 'verification_code_expired');
});

test(`${verifies('SPEC-5.5-bounded-cannot-widen')}a bounded session cannot create an agent, grant, widen, or save a card — even with a valid code`, async () => {
  const shop = await merchantShop(w.h);
  const email = newEmail();
  const full = await signIn(w, email, shop.shopId);
  const instrument = await saveCard(w, full, email);
  const { agent } = await createAgent(w, full, email);
  const bounded = must(await mint(shop.apiKey, shop.shopId, email, { lang: 'fr' }), 201);
  assert.equal(bounded.mode, 'bounded');
  assert.equal(bounded.merchantId, shop.shopId);
  assert.equal(bounded.attested, false);
  assert.ok(new Date(bounded.expiresAt) > w.h.clock.now());
  const b = restClient(w.h.url, bounded.token);

  const agentCode = await codeFor(w, full, email, 'create_agent');
  const grantCode = await codeFor(w, full, email, 'grant_permission');
  const saveCode = await codeFor(w, full, email, 'save_card');
  const capCode = await codeFor(w, full, email, 'raise_card_cap');
  const cardCode = await codeFor(w, full, email, 'change_agent_card');
  const attempts = [
    await b.post('/v1/buyer/agents', { name: 'Sneaky', ...agentCode }),
    await b.post('/v1/buyer/permissions', {
      agentId: agent.id,
      instrumentId: instrument.id,
      ...limits(w),
      ...grantCode,
    }),
    await b.post('/v1/buyer/card-setups', {}),
    await b.post('/v1/buyer/instruments', { setupId: 'cset_0000000000', spendingCapMinor: 1, ...saveCode }),
    await b.post(`/v1/buyer/instruments/${instrument.id}/raise-cap`, { spendingCapMinor: 999_999, ...capCode }),
    await b.post(`/v1/buyer/agents/${agent.id}/card`, { instrumentId: instrument.id, ...cardCode }),
    await b.post('/v1/buyer/verification-codes', { purpose: 'create_agent' }),
    await b.post(`/v1/buyer/agents/${agent.id}/resume`, {}),
  ];
  for (const res of attempts) {
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.code, 'forbidden');
  }
  // The refused calls did not use the codes: the full session still can.
  const fa = restClient(w.h.url, full);
  must(await fa.post('/v1/buyer/agents', { name: 'Legit', ...agentCode }), 201);
  const lowered = must(
    await b.post(`/v1/buyer/instruments/${instrument.id}/lower-cap`, { spendingCapMinor: 50_000 }),
    200,
  );
  assert.equal(lowered.spendingCapMinor, 50_000, 'narrowing is allowed');
  const raised = must(
    await fa.post(`/v1/buyer/instruments/${instrument.id}/raise-cap`, { spendingCapMinor: 80_000, ...capCode }),
    200,
  );
  assert.equal(raised.spendingCapMinor, 80_000);
  const me = must(await b.get('/v1/buyer/session'), 200);
  assert.equal(me.mode, 'bounded');
  assert.equal(me.lang, 'fr');
});

test(`${verifies('SPEC-2.3-session-mint', 'SPEC-5.3-scopes')}minting needs merchant:write on a key of the shop’s organization, and sets the shop server-side`, async () => {
  const shop = await merchantShop(w.h);
  const other = await merchantShop(w.h);
  assert.equal((await mint(other.apiKey, shop.shopId, newEmail())).status, 404);
  const readOnly = await w.h.merchant(['merchant:read']);
  const refused = await mint(readOnly.apiKey, readOnly.shopId, newEmail());
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, 'insufficient_scope');
  const widen = await mint(shop.apiKey, shop.shopId, newEmail(), { mode: 'full' });
  assert.equal(widen.body.code, 'unknown_field');
});

test('a grant carries no merchantId and needs a session for a shop', async () => {
  const shop = await merchantShop(w.h);
  const email = newEmail();
  const withShop = await signIn(w, email, shop.shopId);
  const instrument = await saveCard(w, withShop, email);
  const { agent } = await createAgent(w, withShop, email);
  const proof = await codeFor(w, withShop, email, 'grant_permission');
  const body = { agentId: agent.id, instrumentId: instrument.id, ...limits(w), ...proof };
  const chosen = await restClient(w.h.url, withShop).post('/v1/buyer/permissions', {
    ...body,
    merchantId: shop.shopId,
  });
  assert.equal(chosen.status, 400);
  assert.equal(chosen.body.code, 'unknown_field');
  const noShop = await signIn(w, email);
  const proof2 = await codeFor(w, noShop, email, 'grant_permission');
  const refused = await restClient(w.h.url, noShop).post('/v1/buyer/permissions', { ...body, ...proof2 });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.code, 'session_shop_required');
  const granted = must(await restClient(w.h.url, withShop).post('/v1/buyer/permissions', body), 201);
  assert.equal(granted.merchantId, shop.shopId);
  assert.equal(granted.label, null);
});

test(`${verifies('SPEC-5.5-bounded-inside-authority')}a bounded session sees and narrows only its own shop’s authority`, async () => {
  const shopA = await merchantShop(w.h);
  const shopB = await merchantShop(w.h);
  const email = newEmail();
  const inA = await signIn(w, email, shopA.shopId);
  const cardA = await saveCard(w, inA, email);
  const { agent } = await createAgent(w, inA, email);
  const proof = await codeFor(w, inA, email, 'grant_permission');
  const permission = must(
    await restClient(w.h.url, inA).post('/v1/buyer/permissions', {
      agentId: agent.id,
      instrumentId: cardA.id,
      ...limits(w),
      ...proof,
    }),
    201,
  );
  const inB = await signIn(w, email, shopB.shopId);
  await saveCard(w, inB, email);

  const boundedA = restClient(w.h.url, must(await mint(shopA.apiKey, shopA.shopId, email), 201).token);
  const boundedB = restClient(w.h.url, must(await mint(shopB.apiKey, shopB.shopId, email), 201).token);
  assert.deepEqual(
    must(await boundedA.get('/v1/buyer/instruments'), 200).instruments.map((i: { id: string }) => i.id),
    [cardA.id],
  );
  assert.deepEqual(
    must(await boundedA.get('/v1/buyer/agents'), 200).agents.map((a: { id: string }) => a.id),
    [agent.id],
  );
  assert.deepEqual(must(await boundedB.get('/v1/buyer/agents'), 200).agents, []);
  assert.deepEqual(must(await boundedB.get('/v1/buyer/permissions'), 200).permissions, []);
  assert.equal((await boundedB.post(`/v1/buyer/permissions/${permission.id}/revoke`, {})).status, 404);
  assert.equal(
    (await boundedB.post(`/v1/buyer/instruments/${cardA.id}/lower-cap`, { spendingCapMinor: 1 })).status,
    404,
  );
  assert.equal(
    must(await boundedA.post(`/v1/buyer/permissions/${permission.id}/revoke`, { reason: 'stop' }), 200).status,
    'revoked',
  );
  assert.equal(
    must(await restClient(w.h.url, inA).get('/v1/buyer/instruments'), 200).instruments.length,
    2,
    'a full session sees every card',
  );
});
