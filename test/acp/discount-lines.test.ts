/**
 * ACP's discount extension on a session of several line items (issue #37 item 2, docs/discount-codes.md): the code
 * applies to the whole session, its amount allocated to each item as the spine spreads it, and its reserve takes the
 * use (npm run conformance:acp validates such a session against ACP 2026-04-17's schema).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { acpClient, createBody } from '../support/acp.ts';
import { must, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

test('a session of two line items applies a discount code, allocated to each item', async () => {
  const s = await shopWithTier(h, { priceMinor: 5000 });
  const vip = must(
    await s.api.post('/v1/integration/tiers', { eventId: s.eventId, poolId: s.poolId, name: 'VIP', priceMinor: 3000 }),
    201,
  );
  const code = must(
    await s.api.post('/v1/integration/discount-codes', {
      merchantId: s.shopId,
      code: 'FAMILY',
      kind: 'fixed',
      amountOffMinor: 1000,
    }),
    201,
  );
  const acp = acpClient(h, s.apiKey);
  const body = createBody(s.tierId, {
    currency: 'eur',
    line_items: [
      { id: s.tierId, quantity: 2 },
      { id: vip.id, quantity: 1 },
    ],
    discounts: { codes: ['family'] },
  });
  const session = must(await acp.post('/checkout_sessions', body), 201);
  assert.ok(session.discounts, JSON.stringify(session));
  assert.equal(session.status, 'ready_for_payment', JSON.stringify(session.messages));
  assert.deepEqual(session.discounts.rejected, []);
  const [applied] = session.discounts.applied;
  assert.equal(applied.amount, 1000);
  // 10,000 and 3,000 of subtotal: 769 and 230 rounded down, the cent left over to the first item.
  assert.deepEqual(applied.allocations, [
    { path: '$.line_items[0]', amount: 770 },
    { path: '$.line_items[1]', amount: 230 },
  ]);
  const totals = Object.fromEntries(session.totals.map((t: { type: string; amount: number }) => [t.type, t.amount]));
  assert.deepEqual([totals.items_discount, totals.total], [1000, 12000]);
  const uses = must(await s.api.get(`/v1/integration/discount-codes/${code.id}`), 200).uses;
  assert.equal(uses, 1);
});
