import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { restClient } from '../support/rest.ts';
import {
  buy,
  buyerWithAgent,
  codeFor,
  grant,
  merchantShop,
  must,
  newEmail,
  saveCard,
  signIn,
} from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';

const w = worldPerFile();

async function bringAgent(alg: 'EdDSA' | 'ES256', merchantId?: string) {
  const email = newEmail();
  const session = await signIn(w, email, merchantId);
  const { publicKey, privateKey } = await generateKeyPair(alg, alg === 'EdDSA' ? { crv: 'Ed25519' } : {});
  const jwk = await exportJWK(publicKey);
  const proof = await codeFor(w, session, email, 'create_agent');
  const res = must(
    await restClient(w.h.url, session).post('/v1/buyer/agents', {
      name: `Brought ${alg}`,
      publicKeyJwk: jwk,
      ...proof,
    }),
    201,
  );
  assert.equal(res.token, null, 'a brought agent gets no issued token');
  assert.equal(res.agent.credential, 'key');
  return { email, session, agentId: res.agent.id as string, privateKey, alg };
}

async function agentJwt(
  a: { agentId: string; privateKey: CryptoKey; alg: string },
  opts: { aud?: string; ttl?: number; iss?: string } = {},
) {
  const now = Math.floor(w.h.clock.now().getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: a.alg })
    .setIssuer(opts.iss ?? a.agentId)
    .setSubject(a.agentId)
    .setAudience(opts.aud ?? w.h.url)
    .setIssuedAt(now)
    .setExpirationTime(now + (opts.ttl ?? 120))
    .sign(a.privateKey);
}

test('an issued agent token authenticates until the agent is paused or deleted', async () => {
  const shop = await merchantShop(w.h);
  const s = await buyerWithAgent(w, shop);
  const agent = restClient(w.h.url, s.agentToken);
  const buyer = restClient(w.h.url, s.session);
  must(await agent.post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 }), 201);
  const [row] = await w.h.db.execute<{ token_hash: string }>('select token_hash from agents where id = ?', [s.agentId]);
  assert.notEqual(row!.token_hash, s.agentToken, 'stored hashed');

  assert.equal(must(await buyer.post(`/v1/buyer/agents/${s.agentId}/pause`, {}), 200).status, 'paused');
  const paused = await agent.post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 });
  assert.equal(paused.status, 401);
  assert.equal(paused.body.code, 'unauthenticated');
  assert.equal(must(await buyer.post(`/v1/buyer/agents/${s.agentId}/resume`, {}), 200).status, 'active');
  must(await agent.post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 }), 201);

  must(await buyer.delete(`/v1/buyer/agents/${s.agentId}`), 200);
  assert.equal((await agent.post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 })).status, 401);
  const perms = must(await buyer.get(`/v1/buyer/permissions?agentId=${s.agentId}`), 200).permissions;
  assert.equal(perms[0].status, 'revoked');
  assert.equal(perms[0].revokedReason, 'agent_deleted');
  assert.deepEqual(must(await buyer.get('/v1/buyer/agents'), 200).agents, []);
  assert.equal((await buyer.post(`/v1/buyer/agents/${s.agentId}/resume`, {})).status, 404);
});

test('another buyer’s agent answers 404', async () => {
  const shop = await merchantShop(w.h);
  const s = await buyerWithAgent(w, shop);
  const stranger = restClient(w.h.url, await signIn(w, newEmail()));
  assert.equal((await stranger.post(`/v1/buyer/agents/${s.agentId}/pause`, {})).status, 404);
});

for (const alg of ['EdDSA', 'ES256'] as const) {
  test(`a brought agent (${alg}) authenticates with a short-lived JWT it signs`, async () => {
    const a = await bringAgent(alg);
    const ok = await restClient(w.h.url, await agentJwt(a)).get('/v1/catalog/shops/shop_none00000000');
    assert.notEqual(ok.status, 401, JSON.stringify(ok.body));
    const cases = [
      await agentJwt(a, { aud: 'https://elsewhere.example' }),
      await agentJwt(a, { ttl: 600 }),
      await agentJwt(a, { ttl: -120 }),
    ];
    for (const jwt of cases) {
      const res = await restClient(w.h.url, jwt).post('/v1/ticketing/quotes', { tierId: 'tier_x', quantity: 1 });
      assert.equal(res.status, 401, JSON.stringify(res.body));
    }
    const other = await generateKeyPair(alg, alg === 'EdDSA' ? { crv: 'Ed25519' } : {});
    const forged = await agentJwt({ ...a, privateKey: other.privateKey });
    assert.equal(
      (await restClient(w.h.url, forged).post('/v1/ticketing/quotes', { tierId: 'tier_x', quantity: 1 })).status,
      401,
    );
    must(await restClient(w.h.url, a.session).post(`/v1/buyer/agents/${a.agentId}/pause`, {}), 200);
    assert.equal(
      (await restClient(w.h.url, await agentJwt(a)).post('/v1/ticketing/quotes', { tierId: 'tier_x', quantity: 1 }))
        .status,
      401,
    );
  });
}

test('a brought agent buys inside its permission with its own JWT', async () => {
  const shop = await merchantShop(w.h);
  const a = await bringAgent('EdDSA', shop.shopId);
  const refused = await buy(restClient(w.h.url, await agentJwt(a)), shop.tierId);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, 'permission_missing');
  const instrument = await saveCard(w, a.session, a.email);
  await grant(w, a.session, a.email, a.agentId, instrument.id);
  const ok = await buy(restClient(w.h.url, await agentJwt(a)), shop.tierId);
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  assert.equal(ok.body.order.tickets.length, 1);
});

test('a private key or an unknown key type is refused at registration', async () => {
  const email = newEmail();
  const session = await signIn(w, email);
  const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const jwk = await exportJWK(privateKey);
  const proof = await codeFor(w, session, email, 'create_agent');
  const res = await restClient(w.h.url, session).post('/v1/buyer/agents', {
    name: 'Leaky',
    publicKeyJwk: jwk,
    ...proof,
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'unknown_field', JSON.stringify(res.body));
  const rsa = await restClient(w.h.url, session).post('/v1/buyer/agents', {
    name: 'RSA',
    publicKeyJwk: { kty: 'RSA', n: 'x', e: 'AQAB' },
    ...proof,
  });
  assert.equal(rsa.status, 400);
});

test('permissions carry the agent’s name, and null once the agent is deleted', async () => {
  const shop = await merchantShop(w.h);
  const s = await buyerWithAgent(w, shop);
  assert.equal(s.permission.agentName, 'Shopping agent');
  const buyer = restClient(w.h.url, s.session);
  const minted = must(
    await shop.api.post('/v1/integration/buyer-sessions', { merchantId: shop.shopId, email: s.email }),
    201,
  );
  const bounded = restClient(w.h.url, minted.token);
  for (const api of [buyer, bounded]) {
    const [perm] = must(await api.get('/v1/buyer/permissions'), 200).permissions;
    assert.deepEqual([perm.id, perm.agentId, perm.agentName], [s.permission.id, s.agentId, 'Shopping agent']);
  }
  must(await buyer.delete(`/v1/buyer/agents/${s.agentId}`), 200);
  const [gone] = must(await buyer.get('/v1/buyer/permissions'), 200).permissions;
  assert.deepEqual([gone.agentId, gone.agentName, gone.status], [s.agentId, null, 'revoked']);
});
