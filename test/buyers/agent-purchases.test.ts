import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { restClient } from '../support/rest.ts';
import { SURFACES, type Caller } from '../support/surfaces.ts';
import {
  buy,
  buyerWithAgent,
  codeFor,
  createAgent,
  key,
  merchantShop,
  must,
  newEmail,
  signIn,
} from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';
import { verifies } from '../support/requirements.ts';

const w = worldPerFile();

/** quote → reserve → confirm through one surface; the first refusal or the confirm outcome. */
async function buyOver(call: Caller, tierId: string, quantity = 1) {
  const q = await call('quote', { tierId, quantity });
  if (!q.ok) return q;
  const r = await call('reserve', { quoteId: q.output.quoteId }, { idempotencyKey: randomUUID() });
  if (!r.ok) return r;
  return call('confirm', { id: r.output.reservation.id }, { idempotencyKey: randomUUID() });
}

for (const surface of SURFACES) {
  test(`an agent buys over ${surface.name} inside its permission and is refused outside it`, async () => {
    const shop = await merchantShop(w.h, { priceMinor: 4000 });
    const otherShop = await merchantShop(w.h, { priceMinor: 1000 });
    const s = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 10_000, allowanceMinor: 12_000, windowHours: 24 });
    const conn = await surface.connect(w.h, s.agentToken);
    try {
      const bought = await buyOver(conn.call, shop.tierId, 2);
      assert.equal(bought.ok, true, JSON.stringify(bought));
      if (bought.ok) {
        assert.equal(bought.output.reservation.state, 'completed');
        assert.equal(bought.output.payment.state, 'succeeded');
        assert.equal(bought.output.order.tickets.length, 2);
      }
      const wrongShop = await buyOver(conn.call, otherShop.tierId);
      // Another organization's shop, not discoverable: the same 404 as a missing one (issue #10).
      assert.equal(!wrongShop.ok && wrongShop.code, 'not_found');
      const overCap = await buyOver(conn.call, shop.tierId, 3);
      assert.equal(!overCap.ok && overCap.code, 'over_purchase_cap');
      const spent = await buyOver(conn.call, shop.tierId, 2);
      assert.equal(!spent.ok && spent.code, 'allowance_exhausted', JSON.stringify(spent));
      if (!spent.ok)
        assert.deepEqual([spent.error.details.spentMinor, spent.error.details.remainingMinor], [8000, 4000]);
    } finally {
      await conn.done();
    }
  });
}

test('an expired or revoked permission refuses the agent with its own code', async () => {
  const shop = await merchantShop(w.h);
  const expiresAt = new Date(w.h.clock.now().getTime() + 10 * 60_000).toISOString();
  const s = await buyerWithAgent(w, shop, { expiresAt });
  const agent = restClient(w.h.url, s.agentToken);
  const q = must(await agent.post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 }), 201);
  w.h.clock.advance(10 * 60_000);
  const late = await agent.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key());
  assert.equal(late.status, 403);
  assert.equal(late.body.code, 'permission_expired');

  const t = await buyerWithAgent(w, shop);
  const buyer = restClient(w.h.url, t.session);
  must(await buyer.post(`/v1/buyer/permissions/${t.permission.id}/revoke`, { reason: 'changed my mind' }), 200);
  const revoked = await buy(restClient(w.h.url, t.agentToken), shop.tierId);
  assert.equal(revoked.body.code, 'permission_revoked');
});

test('an agent without any permission is refused with permission_missing; one elsewhere with not_found at a hidden shop', async () => {
  const shop = await merchantShop(w.h);
  const other = await merchantShop(w.h);
  const email = newEmail();
  const session = await signIn(w, email, shop.shopId);
  const { token } = await createAgent(w, session, email);
  assert.equal((await buy(restClient(w.h.url, token), shop.tierId)).body.code, 'permission_missing');
  const s = await buyerWithAgent(w, other);
  must(await restClient(w.h.url, s.session).post(`/v1/buyer/permissions/${s.permission.id}/revoke`, {}), 200);
  assert.equal((await buy(restClient(w.h.url, s.agentToken), shop.tierId)).body.code, 'not_found');
});

test('racing agent purchases cannot jointly exceed the rolling allowance', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 3000 });
  const s = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 5000, allowanceMinor: 7000 });
  const agent = restClient(w.h.url, s.agentToken);
  const reservations: string[] = [];
  for (let i = 0; i < 6; i++) {
    const q = must(await agent.post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 }), 201);
    reservations.push(
      must(await agent.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201).reservation.id,
    );
  }
  const results = await Promise.all(
    reservations.map((id) => agent.post(`/v1/ticketing/reservations/${id}/confirm`, {}, key())),
  );
  const paid = results.filter((r) => r.status === 200);
  assert.equal(paid.length, 2, JSON.stringify(results.map((r) => r.body.code ?? r.status)));
  for (const r of results.filter((x) => x.status !== 200)) assert.equal(r.body.code, 'allowance_exhausted');
  const perm = must(await restClient(w.h.url, s.session).get('/v1/buyer/permissions'), 200).permissions[0];
  assert.equal(perm.spentMinor, 6000);
});

test('a failed payment releases its spend', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 3000 });
  const s = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 5000, allowanceMinor: 5000 }, 'pm_sandbox_declined');
  const declined = await buy(restClient(w.h.url, s.agentToken), shop.tierId);
  assert.equal(declined.status, 402);
  assert.equal(declined.body.code, 'payment_declined');
  // The agent cannot send another payment method: it is told to ask its buyer to update the saved card.
  assert.match(declined.body.message, /Ask your buyer to update the card in the buyer pages/);
  assert.doesNotMatch(declined.body.message, /another payment method/);
  const perm = must(await restClient(w.h.url, s.session).get('/v1/buyer/permissions'), 200).permissions[0];
  assert.equal(perm.spentMinor, 0);
  assert.equal(perm.remainingMinor, 5000);
});

test('the agent never supplies card details: it pays with the permission’s saved card', async () => {
  const shop = await merchantShop(w.h);
  const s = await buyerWithAgent(w, shop);
  const res = await buy(restClient(w.h.url, s.agentToken), shop.tierId, 1, { paymentMethod: 'pm_sandbox_visa' });
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'invalid_input');
});

test(`${verifies('SPEC-7-instrument-provider-mismatch')}a saved card is usable only for the shop and connection it was saved for`, async () => {
  const shopA = await merchantShop(w.h);
  const shopB = await merchantShop(w.h);
  const s = await buyerWithAgent(w, shopA);
  const inB = await signIn(w, s.email, shopB.shopId);
  const proof = await codeFor(w, inB, s.email, 'grant_permission');
  const mismatch = await restClient(w.h.url, inB).post('/v1/buyer/permissions', {
    agentId: s.agentId,
    instrumentId: s.instrumentId,
    perPurchaseCapMinor: 1000,
    allowanceMinor: 1000,
    windowHours: 1,
    expiresAt: new Date(w.h.clock.now().getTime() + 86_400_000).toISOString(),
    ...proof,
  });
  assert.equal(mismatch.status, 409);
  assert.equal(mismatch.body.code, 'instrument_provider_mismatch');
  const buyerInB = restClient(w.h.url, inB);
  const viaBuyer = await buy(buyerInB, shopB.tierId, 1, { instrumentId: s.instrumentId });
  assert.equal(viaBuyer.status, 409);
  assert.equal(viaBuyer.body.code, 'instrument_provider_mismatch');
  const ownCard = await buy(restClient(w.h.url, s.session), shopA.tierId, 1, { instrumentId: s.instrumentId });
  assert.equal(ownCard.status, 200, JSON.stringify(ownCard.body));
});

test('a card over its spending cap refuses the agent with over_card_cap', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 6000 });
  const s = await buyerWithAgent(w, shop);
  const buyer = restClient(w.h.url, s.session);
  must(await buyer.post(`/v1/buyer/instruments/${s.instrumentId}/lower-cap`, { spendingCapMinor: 5000 }), 200);
  assert.equal((await buy(restClient(w.h.url, s.agentToken), shop.tierId)).body.code, 'over_card_cap');
});
