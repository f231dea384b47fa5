import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { must, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const hour = 3_600_000;

test('a quote prices the tier with per-ticket fees and holds nothing', async () => {
  const s = await shopWithTier(h, { capacity: 5, priceMinor: 4200, feePerTicketMinor: 150 });
  const q = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 3 }), 201);
  assert.match(q.quoteId, /^quo_/);
  assert.equal(q.unitPriceMinor, 4200);
  assert.equal(q.subtotalMinor, 12600);
  assert.equal(q.feesMinor, 450);
  assert.equal(q.totalMinor, 13050);
  assert.equal(q.currency, 'EUR');
  assert.equal(new Date(q.expiresAt).getTime() - h.clock.now().getTime(), 15 * 60_000);
  const c = await assertInvariant(h.db, s.poolId);
  assert.equal(c.available, 5);
});

describe('each restriction is refused with its own code', () => {
  const cases: {
    name: string;
    restrictions: Record<string, unknown>;
    body: Record<string, unknown>;
    status: number;
    code: string;
  }[] = [
    { name: 'not sellable', restrictions: { sellable: false }, body: {}, status: 409, code: 'not_sellable' },
    {
      name: 'not on sale yet',
      restrictions: { onSaleStart: 'FUTURE' },
      body: {},
      status: 409,
      code: 'not_on_sale_yet',
    },
    { name: 'sale ended', restrictions: { onSaleEnd: 'PAST' }, body: {}, status: 409, code: 'sale_ended' },
    {
      name: 'quantity over limit',
      restrictions: { maxQtyPerPurchase: 2 },
      body: { quantity: 3 },
      status: 422,
      code: 'quantity_over_limit',
    },
    {
      name: 'country required',
      restrictions: { allowedGeos: ['DE', 'AT'] },
      body: {},
      status: 422,
      code: 'country_required',
    },
    {
      name: 'country not allowed',
      restrictions: { allowedGeos: ['DE'] },
      body: { country: 'FR' },
      status: 422,
      code: 'geo_not_allowed',
    },
    {
      name: 'scheme required',
      restrictions: { allowedSchemes: ['visa'] },
      body: {},
      status: 422,
      code: 'scheme_required',
    },
    {
      name: 'scheme not allowed',
      restrictions: { allowedSchemes: ['visa'] },
      body: { scheme: 'amex' },
      status: 422,
      code: 'scheme_not_allowed',
    },
    { name: 'sold out', restrictions: {}, body: { quantity: 4 }, status: 409, code: 'sold_out' },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const now = h.clock.now().getTime();
      const restrictions = Object.fromEntries(
        Object.entries(c.restrictions).map(([k, v]) => [
          k,
          v === 'FUTURE' ? new Date(now + hour).toISOString() : v === 'PAST' ? new Date(now - hour).toISOString() : v,
        ]),
      );
      const s = await shopWithTier(h, { capacity: 3, restrictions });
      const res = await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1, ...c.body });
      assert.equal(res.status, c.status, JSON.stringify(res.body));
      assert.equal(res.body.code, c.code);
      if (c.code === 'sold_out') assert.equal(res.body.details.available, 3);
      if (c.code === 'quantity_over_limit') assert.equal(res.body.details.maxQtyPerPurchase, 2);
      await assertInvariant(h.db, s.poolId);
    });
  }
});

test('the sale window follows the injected clock', async () => {
  const start = new Date(h.clock.now().getTime() + hour).toISOString();
  const s = await shopWithTier(h, { restrictions: { onSaleStart: start } });
  assert.equal(
    (await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 })).body.code,
    'not_on_sale_yet',
  );
  h.clock.advance(hour);
  must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
});

test('allowed country and scheme pass', async () => {
  const s = await shopWithTier(h, { restrictions: { allowedGeos: ['DE'], allowedSchemes: ['visa', 'mastercard'] } });
  const q = must(
    await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1, country: 'DE', scheme: 'visa' }),
    201,
  );
  assert.equal(q.country, 'DE');
  assert.equal(q.scheme, 'visa');
});

test('another organization cannot quote the tier (404), unknown fields are refused (400)', async () => {
  const s = await shopWithTier(h);
  const other = restClient(h.url, (await h.merchant()).apiKey);
  const res = await other.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 });
  assert.equal(res.status, 404);
  assert.equal(res.body.code, 'not_found');
  const bad = await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1, discount: 5 });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'unknown_field');
});

test('an API key without merchant:write cannot quote', async () => {
  const s = await shopWithTier(h);
  const reader = restClient(h.url, (await h.merchant(['merchant:read'])).apiKey);
  const res = await reader.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 });
  assert.equal(res.status, 403);
  assert.equal(res.body.code, 'insufficient_scope');
});
