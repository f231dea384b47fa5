/**
 * Discount codes (issue #37 item 2, docs/discount-codes.md) over REST: the merchant's tools, a code's price on the
 * quote, its refusals with their reasons, and its uses counted exactly once: twenty buyers racing for the last use,
 * the per-buyer limit, and the use given back by a release, an expiry and (only when the code says so) a refund.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { confirmWith, key, must, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

type Code = { id: string; code: string; uses: number; disabled: boolean };

async function newCode(s: Shop, fields: Record<string, unknown>): Promise<Code> {
  return must(await s.api.post('/v1/integration/discount-codes', { merchantId: s.shopId, ...fields }), 201);
}

const quoteWith = (s: Shop, extra: Record<string, unknown>, quantity = 1) =>
  s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity, ...extra });

const usesOf = async (s: Shop, id: string) =>
  must(await s.api.get<Code>(`/v1/integration/discount-codes/${id}`), 200).uses;

function refusedFor(res: { status: number; body: unknown }, reason: string): void {
  const body = res.body as { code?: string; details?: { reason?: string } };
  assert.equal(res.status, 422, JSON.stringify(body));
  assert.equal(body.code, 'discount_code_invalid');
  assert.equal(body.details?.reason, reason);
}

test('percent and fixed codes price the quote (never below fees); unusable ones are refused', async () => {
  const s = await shopWithTier(h, { priceMinor: 2999, feePerTicketMinor: 100 });
  await newCode(s, { code: 'Summer-25', kind: 'percent', percentOff: 25 });
  const q = must(await quoteWith(s, { discountCode: 'summer-25' }, 2), 201);
  assert.equal(q.subtotalMinor, 5998);
  assert.equal(q.discountMinor, 1499); // 25 % of 5998, rounded down
  assert.equal(q.discountCode, 'SUMMER-25');
  assert.equal(q.totalMinor, 5998 - 1499 + 200);
  const big = await newCode(s, { code: 'ALLOFF', kind: 'fixed', amountOffMinor: 100_000 });
  const free = must(await quoteWith(s, { discountCode: 'alloff' }, 2), 201);
  assert.deepEqual([free.discountMinor, free.totalMinor, free.discountCodeId], [5998, 200, big.id]);
  // Without a code the quote answers exactly as before: no discount field at all.
  const plain = must(await quoteWith(s, {}), 201);
  assert.equal('discountMinor' in plain || 'discountCode' in plain || 'discountCodeId' in plain, false);

  refusedFor(await quoteWith(s, { discountCode: 'NOPE1' }), 'unknown');
  const other = await shopWithTier(h);
  refusedFor(await quoteWith(other, { discountCode: 'SUMMER-25' }), 'unknown'); // another shop's code
  const now = h.clock.now().getTime();
  await newCode(s, {
    code: 'LATE',
    kind: 'percent',
    percentOff: 10,
    startsAt: new Date(now + 3_600_000).toISOString(),
  });
  refusedFor(await quoteWith(s, { discountCode: 'late' }), 'not_started');
  await newCode(s, { code: 'GONE', kind: 'percent', percentOff: 10, endsAt: new Date(now + 60_000).toISOString() });
  must(await quoteWith(s, { discountCode: 'GONE' }), 201);
  h.clock.advance(61_000);
  refusedFor(await quoteWith(s, { discountCode: 'GONE' }), 'expired');
  const elsewhere = {
    merchantId: s.shopId,
    code: 'ELSEWHERE',
    kind: 'percent',
    percentOff: 10,
    tierIds: [other.tierId],
  };
  assert.equal((await s.api.post('/v1/integration/discount-codes', elsewhere)).status, 400); // not this shop's tier
  const second = must(
    await s.api.post('/v1/integration/tiers', { eventId: s.eventId, poolId: s.poolId, name: 'VIP', priceMinor: 9000 }),
    201,
  );
  await newCode(s, { code: 'VIPONLY', kind: 'percent', percentOff: 50, tierIds: [second.id] });
  refusedFor(await quoteWith(s, { discountCode: 'VIPONLY' }), 'not_applicable');
  const off = await newCode(s, { code: 'PAUSED', kind: 'fixed', amountOffMinor: 500 });
  must(await s.api.patch(`/v1/integration/discount-codes/${off.id}`, { disabled: true }), 200);
  refusedFor(await quoteWith(s, { discountCode: 'PAUSED' }), 'disabled');
});

test('merchants manage codes: unique per shop in any case, paged, 404 to others, deleted ones gone', async () => {
  const s = await shopWithTier(h);
  const a = await newCode(s, { code: 'ALPHA', kind: 'percent', percentOff: 5 });
  const taken = await s.api.post('/v1/integration/discount-codes', {
    merchantId: s.shopId,
    code: 'alpha',
    kind: 'fixed',
    amountOffMinor: 100,
  });
  assert.equal(taken.status, 409);
  assert.equal((taken.body as { code: string }).code, 'discount_code_taken');
  const tiers = await s.api.post('/v1/integration/discount-codes', {
    merchantId: s.shopId,
    code: 'BETA',
    kind: 'percent',
    percentOff: 5,
    unknownField: 1,
  });
  assert.equal(tiers.status, 400);
  await newCode(s, { code: 'BETA', kind: 'percent', percentOff: 5 });
  await newCode(s, { code: 'GAMMA', kind: 'percent', percentOff: 5 });
  const first = must(await s.api.get(`/v1/integration/discount-codes?merchantId=${s.shopId}&limit=2`), 200);
  const rest = must(
    await s.api.get(`/v1/integration/discount-codes?merchantId=${s.shopId}&limit=2&cursor=${first.nextCursor}`),
    200,
  );
  assert.equal(first.codes.length, 2);
  assert.equal(rest.nextCursor, undefined);
  const all = [...first.codes, ...rest.codes].map((c: Code) => c.code).sort();
  assert.deepEqual(all, ['ALPHA', 'BETA', 'GAMMA']);
  const stranger = await shopWithTier(h);
  assert.equal((await stranger.api.get(`/v1/integration/discount-codes/${a.id}`)).status, 404);
  assert.equal((await stranger.api.delete(`/v1/integration/discount-codes/${a.id}`)).status, 404);
  must(await s.api.delete(`/v1/integration/discount-codes/${a.id}`), 200);
  assert.equal((await s.api.get(`/v1/integration/discount-codes/${a.id}`)).status, 404);
  await newCode(s, { code: 'ALPHA', kind: 'percent', percentOff: 7 }); // its text is free again
});

test('one use left and twenty racing buyers: one discounted hold, the rest refused as exhausted', async () => {
  const s = await shopWithTier(h, { capacity: 50 });
  const code = await newCode(s, { code: 'LASTONE', kind: 'percent', percentOff: 50, maxUses: 1 });
  const quotes = await Promise.all(
    Array.from({ length: 20 }, async () => must(await quoteWith(s, { discountCode: 'LASTONE' }), 201)),
  );
  const results = await Promise.all(
    quotes.map((q) => s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key())),
  );
  const won = results.filter((r) => r.status === 201);
  assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.status)));
  assert.equal(won[0]!.body.reservation.discountMinor, 2500);
  for (const r of results.filter((x) => x.status !== 201)) refusedFor(r, 'exhausted');
  assert.equal(await usesOf(s, code.id), 1);
  const c = await assertInvariant(h.db, s.poolId);
  assert.equal(c.held, 1);
  refusedFor(await quoteWith(s, { discountCode: 'lastone' }), 'exhausted');
});

test('a per-buyer limit counts the payer e-mail: a second use is refused at quote and at reserve', async () => {
  const s = await shopWithTier(h);
  await newCode(s, { code: 'ONCEEACH', kind: 'fixed', amountOffMinor: 700, maxUsesPerBuyer: 1 });
  refusedFor(await quoteWith(s, { discountCode: 'ONCEEACH' }), 'buyer_required');
  const ann = { discountCode: 'ONCEEACH', buyerEmail: 'Ann@example.com' };
  const [q1, q2] = [must(await quoteWith(s, ann), 201), must(await quoteWith(s, ann), 201)];
  const both = await Promise.all(
    [q1, q2].map((q) => s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key())),
  );
  assert.deepEqual(
    both.map((r) => r.status).sort((a, b) => a - b),
    [201, 422],
  );
  refusedFor(
    both.find((r) => r.status === 422)!,
    'buyer_limit',
  );
  refusedFor(await quoteWith(s, { ...ann, buyerEmail: 'ann@example.com' }), 'buyer_limit');
  must(await quoteWith(s, { ...ann, buyerEmail: 'bob@example.com' }), 201); // another buyer
});

test('a released or expired hold gives its use back; a refund gives it back only when the code says so', async () => {
  const s = await shopWithTier(h, { holdMinutes: 5 });
  const code = await newCode(s, { code: 'ONEUSE', kind: 'percent', percentOff: 10, maxUses: 1 });
  const reserve = async () => {
    const q = must(await quoteWith(s, { discountCode: 'ONEUSE' }), 201);
    return must(await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201).reservation;
  };
  const r1 = await reserve();
  assert.equal(await usesOf(s, code.id), 1);
  must(await s.api.post(`/v1/ticketing/reservations/${r1.id}/release`, {}, key()), 200);
  assert.equal(await usesOf(s, code.id), 0);
  await reserve();
  h.clock.advance(6 * 60_000);
  await h.app.sweeper.sweepExpiredHolds(h.clock.now(), 1000);
  assert.equal(await usesOf(s, code.id), 0);

  const r3 = await reserve();
  const paid = must(await confirmWith(s.api, r3.id, 'pm_sandbox_visa'), 200);
  assert.equal(paid.order.totalMinor, 4500);
  must(
    await s.api.post(`/v1/ticketing/orders/${paid.order.id}/refunds`, { reason: 'asked', returnToPool: true }, key()),
    200,
  );
  assert.equal(await usesOf(s, code.id), 1); // refundReturnsUse false: the use stays spent
  must(await s.api.patch(`/v1/integration/discount-codes/${code.id}`, { maxUses: 2, refundReturnsUse: true }), 200);
  const r4 = await reserve();
  const paid4 = must(await confirmWith(s.api, r4.id, 'pm_sandbox_visa'), 200);
  must(
    await s.api.post(`/v1/ticketing/orders/${paid4.order.id}/refunds`, { reason: 'asked', returnToPool: true }, key()),
    200,
  );
  assert.equal(await usesOf(s, code.id), 1);
  await assertInvariant(h.db, s.poolId);
  // Another organization cannot read the code's counts either.
  const stranger = restClient(h.url, (await h.merchant()).apiKey);
  assert.equal((await stranger.get(`/v1/integration/discount-codes/${code.id}`)).status, 404);
});

test('a quote of several lines takes a fixed code spread over its lines, and its reserve takes the use', async () => {
  const s = await shopWithTier(h, { priceMinor: 5000 });
  const vip = must(
    await s.api.post('/v1/integration/tiers', { eventId: s.eventId, poolId: s.poolId, name: 'VIP', priceMinor: 3000 }),
    201,
  );
  const code = await newCode(s, { code: 'FAMILY', kind: 'fixed', amountOffMinor: 1000, maxUses: 1 });
  const lines = [
    { tierId: s.tierId, quantity: 2 },
    { tierId: vip.id, quantity: 1 },
  ];
  const q = must(await s.api.post('/v1/ticketing/quotes', { lines, discountCode: 'family' }), 201);
  assert.deepEqual([q.subtotalMinor, q.discountMinor, q.totalMinor], [13000, 1000, 12000]);
  const held = must(await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  assert.equal(held.reservation.discountMinor, 1000);
  assert.equal(await usesOf(s, code.id), 1);
  refusedFor(await s.api.post('/v1/ticketing/quotes', { lines, discountCode: 'FAMILY' }), 'exhausted');
});
