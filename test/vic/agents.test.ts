/** purchase_initiate as an agent: the network mandate, not the buyer's permission, authorizes the payment. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import {
  buyerWithAgent,
  createAgent,
  key,
  merchantShop,
  must,
  newEmail,
  signIn,
  startWorld,
  type World,
} from '../support/buyers.ts';
import { makeKey, writeTrustList } from '../support/independent-signer.ts';
import { a2aClient, runSkill } from '../support/a2a.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { count } from '../support/spine.ts';
import { initiate, signedMandate, spentRows, type Vic } from '../support/vic.ts';

let w: World;
let v: Vic;
const signing = makeKey('EdDSA');
const trust = writeTrustList([signing]);
before(async () => {
  w = await startWorld({ MANDATE_TRUST_LIST: trust.path });
  v = { h: w.h, key: signing, close: async () => undefined };
});
after(async () => {
  await w?.close();
  rmSync(trust.dir, { recursive: true, force: true });
});

const mandateOf = (m: ReturnType<typeof signedMandate>) => ({ payload: m.payload, signature: m.signature });

test('an agent buys under a signed mandate; its permission is neither required at payment nor charged', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 4000, capacity: 5 });
  const s = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 5000, allowanceMinor: 5000 });
  const agent = restClient(w.h.url, s.agentToken);
  const q = must(await agent.post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 }), 201);
  // The buyer withdraws the agent's permission: confirm would now be refused, purchase_initiate is not.
  must(
    await restClient(w.h.url, s.session).post(`/v1/buyer/permissions/${s.permission.id}/revoke`, {
      reason: 'use the network mandate',
    }),
    200,
  );
  const m = signedMandate(v, shop.shopId);
  const out = must(await initiate(agent, { quoteId: q.quoteId, mandate: mandateOf(m) }), 200);
  assert.equal(out.reservation.state, 'completed');
  assert.equal(out.order.tickets.length, 1);
  assert.equal(
    out.payment.paymentMethod,
    'sbx-token-visa-4242',
    'the network credential is charged, not the saved card',
  );
  assert.equal(
    await count(w.h.db, 'from permission_spends where reservation_id = ?', [out.reservation.id]),
    0,
    'no allowance spent',
  );
  assert.equal(await spentRows(w.h, m), 1);
  await assertInvariant(w.h.db, shop.poolId);

  // The merchant sees the purchase; another agent does not (404), even with a valid mandate.
  assert.equal((await shop.api.get(`/v1/ticketing/reservations/${out.reservation.id}`)).status, 200);
  const stranger = await buyerWithAgent(w, shop);
  const theirs = await initiate(restClient(w.h.url, stranger.agentToken), {
    reservationId: out.reservation.id,
    mandate: mandateOf(signedMandate(v, shop.shopId)),
  });
  assert.deepEqual([theirs.status, theirs.body.code], [404, 'not_found']);
  const buyer = await initiate(restClient(w.h.url, s.session), {
    reservationId: out.reservation.id,
    mandate: mandateOf(m),
  });
  assert.deepEqual(
    [buyer.status, buyer.body.code],
    [403, 'forbidden'],
    'buyer sessions pay with confirm, not under a network mandate',
  );
});

test('an agent with a held reservation is refused over A2A with auth-required until its mandate verifies', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 4000, capacity: 5 });
  const s = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 5000, allowanceMinor: 50_000 });
  const agent = restClient(w.h.url, s.agentToken);
  const q = must(await agent.post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 }), 201);
  const r = must(await agent.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  const client = await a2aClient(w.h, s.agentToken);
  const call = (mandate?: Record<string, unknown>) =>
    runSkill(
      client,
      'purchase_initiate',
      { reservationId: r.reservation.id, ...(mandate ? { mandate } : {}) },
      randomUUID(),
    );
  const missing = await call();
  assert.deepEqual([missing.state, !missing.ok && missing.code], ['TASK_STATE_AUTH_REQUIRED', 'mandate_required']);
  const forged = signedMandate(v, shop.shopId, {}, makeKey('EdDSA', signing.kid));
  const invalid = await call(mandateOf(forged));
  assert.deepEqual(
    [invalid.state, !invalid.ok && invalid.code],
    ['TASK_STATE_AUTH_REQUIRED', 'mandate_signature_invalid'],
  );
  assert.equal(await count(w.h.db, 'from payments where reservation_id = ?', [r.reservation.id]), 0);
  const paid = await call(mandateOf(signedMandate(v, shop.shopId)));
  assert.deepEqual([paid.state, paid.ok && paid.output.reservation.state], ['TASK_STATE_COMPLETED', 'completed']);
  await assertInvariant(w.h.db, shop.poolId);
});

test('an agent with no permission at all can quote, but holds places only under a verified mandate', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 4000, capacity: 5 });
  const email = newEmail();
  const session = await signIn(w, email, shop.shopId);
  const { token } = await createAgent(w, session, email);
  const agent = restClient(w.h.url, token);
  const q = must(await agent.post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 }), 201);
  const hold = await agent.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key());
  assert.deepEqual([hold.status, hold.body.code], [403, 'permission_missing'], 'no permission: no hold');
  const out = must(
    await initiate(agent, { quoteId: q.quoteId, mandate: mandateOf(signedMandate(v, shop.shopId)) }),
    200,
  );
  assert.equal(out.reservation.state, 'completed');
  assert.deepEqual(await assertInvariant(w.h.db, shop.poolId), { capacity: 5, available: 4, held: 0, sold: 1 });
});
