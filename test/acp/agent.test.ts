/**
 * An agent principal checking out over ACP: the buyer's permission (spine) and the token's allowance (ACP) both apply.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { buyerWithAgent, merchantShop, startWorld, type World } from '../support/buyers.ts';
import { assertInvariant } from '../support/invariant.ts';
import { acpClient, acpValid, completeBody, createBody, delegateBody, must } from '../support/acp.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

test('an agent with a permission creates, delegates and completes an ACP session; its permission still governs', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 3000, capacity: 5 });
  const other = await merchantShop(w.h, { priceMinor: 1000 });
  const s = await buyerWithAgent(w, shop, { perPurchaseCapMinor: 7000, allowanceMinor: 10_000 });
  const acp = acpClient(w.h, s.agentToken);
  const eur = { currency: 'eur' };

  const created = must(await acp.post('/checkout_sessions', createBody(shop.tierId, eur)), 201);
  acpValid('CheckoutSession', created);
  assert.equal(created.status, 'ready_for_payment');
  const token = must(
    await acp.post(
      '/agentic_commerce/delegate_payment',
      delegateBody({ currency: 'eur', checkout_session_id: created.id, merchant_id: shop.shopId }),
    ),
    201,
  );
  const done = must(await acp.post(`/checkout_sessions/${created.id}/complete`, completeBody(token.id)), 200);
  acpValid('CheckoutSessionWithOrder', done);
  assert.equal(done.status, 'completed');
  const perm = must(await acpClient(w.h, s.session).raw.get('/v1/buyer/permissions'), 200).permissions[0];
  assert.equal(perm.spentMinor, 3000, 'the ACP purchase is spent against the permission');

  // Another organization's shop, not discoverable: the same 404 as a missing one (issue #10).
  const wrongShop = must(await acp.post('/checkout_sessions', createBody(other.tierId, eur)), 404);
  acpValid('Error', wrongShop);
  assert.equal(wrongShop.code, 'not_found');
  const overCap = must(await acp.post('/checkout_sessions', createBody(shop.tierId, eur, 3)), 403);
  assert.equal(overCap.code, 'over_purchase_cap');

  const second = must(await acp.post('/checkout_sessions', createBody(shop.tierId, eur, 2)), 201);
  const mastercard = must(
    await acp.post(
      '/agentic_commerce/delegate_payment',
      delegateBody({ currency: 'eur', checkout_session_id: second.id, merchant_id: shop.shopId }, '5555555555554444'),
    ),
    201,
  );
  const refused = await acp.post(`/checkout_sessions/${second.id}/complete`, completeBody(mastercard.id));
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.equal(refused.body.code, 'invalid_input', 'an agent pays only with the card its permission names');
  const c = await assertInvariant(w.h.db, shop.poolId);
  assert.deepEqual([c.held, c.sold], [2, 1]);
});
