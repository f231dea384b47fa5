/**
 * A hold refusal on an ACP session of several line items points its message's `param` at the refused item
 * (issue #37): `$.line_items[1]` when the second tier is sold out or asked over its limit, not always `[0]`.
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

test('a multi-item session refused on its second item names $.line_items[1]', async () => {
  const s = await shopWithTier(h, { priceMinor: 5000 });
  const small = must(
    await s.api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: s.eventId, capacity: 1 }),
    201,
  );
  const vip = must(
    await s.api.post('/v1/integration/tiers', { eventId: s.eventId, poolId: small.id, name: 'VIP', priceMinor: 9000 }),
    201,
  );
  const limited = must(
    await s.api.post('/v1/integration/tiers', {
      eventId: s.eventId,
      poolId: s.poolId,
      name: 'Family',
      priceMinor: 3000,
      maxQtyPerPurchase: 2,
    }),
    201,
  );
  const acp = acpClient(h, s.apiKey);
  const session = (items: { id: string; quantity: number }[]) =>
    acp.post('/checkout_sessions', createBody(s.tierId, { currency: 'eur', line_items: items }));

  const soldOut = must(
    await session([
      { id: s.tierId, quantity: 1 },
      { id: vip.id, quantity: 2 },
    ]),
    201,
  );
  assert.equal(soldOut.status, 'not_ready_for_payment');
  assert.deepEqual([soldOut.messages[0].code, soldOut.messages[0].param], ['out_of_stock', '$.line_items[1]']);

  const over = must(
    await session([
      { id: s.tierId, quantity: 1 },
      { id: limited.id, quantity: 3 },
    ]),
    201,
  );
  assert.deepEqual([over.messages[0].code, over.messages[0].param], ['quantity_exceeded', '$.line_items[1].quantity']);

  const first = must(
    await session([
      { id: limited.id, quantity: 3 },
      { id: s.tierId, quantity: 1 },
    ]),
    201,
  );
  assert.deepEqual(
    [first.messages[0].code, first.messages[0].param],
    ['quantity_exceeded', '$.line_items[0].quantity'],
  );
});
