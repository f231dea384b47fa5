/**
 * purchase_initiate with a quote runs the one reserve rule (issue #33, 1): a quote someone else already reserved is
 * `quote_already_used` for a caller who may see it, as at `reserve`; only the quote's owner gets its hold back.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { count, key, must, shopWithTier } from '../support/spine.ts';
import { initiate, signedMandate, spentRows, startVic, type Vic } from '../support/vic.ts';

let v: Vic;
before(async () => {
  v = await startVic();
});
after(async () => {
  await v?.close();
});

test("a merchant key's purchase_initiate of its buyer's reserved quote is quote_already_used, not paid", async () => {
  const s = await shopWithTier(v.h, { capacity: 5, priceMinor: 5000 });
  const minted = await s.api.post('/v1/integration/buyer-sessions', { merchantId: s.shopId, email: 'b@example.com' });
  const session = must(minted, 201);
  const buyer = restClient(v.h.url, session.token);
  const q = must(await buyer.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  const { reservation } = must(await buyer.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  // The merchant's key sees the buyer's quote and hold (its shop's purchases), but the hold is the buyer's.
  must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  const m = signedMandate(v, s.shopId);
  const res = await initiate(s.api, { quoteId: q.quoteId, mandate: { payload: m.payload, signature: m.signature } });
  const refusal = [res.status, res.body.code, res.body.details?.reservationId];
  assert.deepEqual(refusal, [409, 'quote_already_used', reservation.id]);
  assert.equal(await count(v.h.db, 'from payments where reservation_id = ?', [reservation.id]), 0);
  assert.equal(await spentRows(v.h, m), 0);
  const c = await assertInvariant(v.h.db, s.poolId);
  assert.deepEqual([c.held, c.sold], [1, 0]);
  // The buyer, the quote's owner, still gets its own hold back from reserve (natural idempotency).
  const again = must(await buyer.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  assert.equal(again.reservation.id, reservation.id);
});
