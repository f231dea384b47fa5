/**
 * Several lines in one purchase (issue #37 item 1): quote → reserve → confirm → refund over REST and MCP with tiers of
 * two pools, holds all or nothing under races, expiry and release giving every line back, the invariant per pool.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertInvariant } from '../support/invariant.ts';
import { callTool, mcpHttp } from '../support/mcp.ts';
import { buyerWithAgent, merchantShop, startWorld, type World } from '../support/buyers.ts';
import { confirmWith, key, must, shopWithTier, type Api } from '../support/spine.ts';
import { acpClient, acpValid, completeBody, delegateBody } from '../support/acp.ts';
import { restClient } from '../support/rest.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

/** A second pool of the shop's event, with a tier at `priceMinor`. */
async function secondTier(api: Api, s: { shopId: string; eventId: string }, capacity: number, priceMinor = 2500) {
  const pool = must(
    await api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: s.eventId, capacity }),
    201,
  );
  const tier = must(
    await api.post('/v1/integration/tiers', { eventId: s.eventId, poolId: pool.id, name: 'Child', priceMinor }),
    201,
  );
  return { poolId: pool.id as string, tierId: tier.id as string };
}

const counts = async (poolId: string) => {
  const c = await assertInvariant(w.h.db, poolId);
  return [c.available, c.held, c.sold];
};

test('two tiers in one purchase: lines priced and totalled once, one hold, one payment, tickets of each tier, a refund of one line back to its own pool', async () => {
  const s = await shopWithTier(w.h, { capacity: 10, priceMinor: 5000, feePerTicketMinor: 100 });
  const b = await secondTier(s.api, s, 5);
  const q = must(
    await s.api.post('/v1/ticketing/quotes', {
      lines: [
        { tierId: s.tierId, quantity: 2 },
        { tierId: b.tierId, quantity: 1 },
      ],
    }),
    201,
  );
  assert.deepEqual(
    [q.tierId, q.poolId, q.quantity, q.unitPriceMinor, q.subtotalMinor, q.feesMinor, q.totalMinor],
    [s.tierId, s.poolId, 3, 5000, 12500, 300, 12800],
  );
  assert.deepEqual(q.lines, [
    { tierId: s.tierId, poolId: s.poolId, quantity: 2, unitPriceMinor: 5000, subtotalMinor: 10000 },
    { tierId: b.tierId, poolId: b.poolId, quantity: 1, unitPriceMinor: 2500, subtotalMinor: 2500 },
  ]);
  const single = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }), 201);
  assert.equal('lines' in single, false, 'a single-tier quote answers as before');

  const { reservation } = must(await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  assert.deepEqual([reservation.quantity, reservation.totalMinor, reservation.lines], [3, 12800, q.lines]);
  assert.deepEqual(await counts(s.poolId), [8, 2, 0]);
  assert.deepEqual(await counts(b.poolId), [4, 1, 0]);

  const paid = must(await confirmWith(s.api, reservation.id, 'pm_sandbox_visa'), 200);
  assert.equal(paid.payment.amountMinor, 12800);
  const tiers = paid.order.tickets.map((t: { tierId: string }) => t.tierId).sort();
  assert.deepEqual(tiers, [s.tierId, s.tierId, b.tierId].sort());
  assert.deepEqual(await counts(s.poolId), [8, 0, 2]);
  assert.deepEqual(await counts(b.poolId), [4, 0, 1]);
  const order = must(await s.api.get(`/v1/ticketing/orders/${paid.order.id}`), 200);
  assert.equal(order.tickets.length, 3);

  // One ticket of the second line: its share (2500 + 100 of 12800 → 2600), back to its own pool.
  const child = paid.order.tickets.find((t: { tierId: string }) => t.tierId === b.tierId);
  const body = { ticketIds: [child.id], reason: 'ill', returnToPool: true };
  const previewBody = { ticketIds: [child.id] };
  const preview = must(await s.api.post(`/v1/ticketing/orders/${paid.order.id}/refund-preview`, previewBody), 200);
  assert.equal(preview.amountMinor, 2600);
  const refunded = must(await s.api.post(`/v1/ticketing/orders/${paid.order.id}/refunds`, body, key()), 200);
  assert.deepEqual([refunded.refund.amountMinor, refunded.order.state], [2600, 'partially_refunded']);
  assert.deepEqual(await counts(b.poolId), [5, 0, 0]);
  assert.deepEqual(await counts(s.poolId), [8, 0, 2]);
  // The rest: the other line's two tickets take what is left.
  const rest = must(
    await s.api.post(`/v1/ticketing/orders/${paid.order.id}/refunds`, { reason: 'ill', returnToPool: true }, key()),
    200,
  );
  assert.deepEqual([rest.refund.amountMinor, rest.order.state], [10200, 'refunded']);
  assert.deepEqual(await counts(s.poolId), [10, 0, 0]);
});

test('a quote names tierId and quantity or lines: both, neither, a tier twice, two events are refused; lines sharing a pool are counted together', async () => {
  const s = await shopWithTier(w.h, { capacity: 3 });
  const sameEvent = await secondTier(s.api, s, 5);
  const other = await shopWithTier(w.h);
  const sharing = must(
    await s.api.post('/v1/integration/tiers', { eventId: s.eventId, poolId: s.poolId, name: 'Late', priceMinor: 10 }),
    201,
  );
  const quote = (body: unknown) => s.api.post('/v1/ticketing/quotes', body);
  const line = (tierId: string, quantity = 1) => ({ tierId, quantity });
  for (const body of [
    { tierId: s.tierId, quantity: 1, lines: [line(s.tierId)] },
    {},
    { lines: [line(s.tierId), line(s.tierId)] },
    { lines: [] },
  ]) {
    const res = await quote(body);
    assert.deepEqual([res.status, res.body.code], [400, 'invalid_input'], JSON.stringify(body));
  }
  const foreign = await quote({ lines: [line(s.tierId), line(other.tierId)] });
  assert.deepEqual([foreign.status, foreign.body.code], [404, 'not_found']);
  const twoEvents = await shopWithTier(w.h);
  const theirs = await secondTier(twoEvents.api, { shopId: twoEvents.shopId, eventId: twoEvents.eventId }, 2);
  const mixed = await twoEvents.api.post('/v1/ticketing/quotes', {
    lines: [line(twoEvents.tierId), line(theirs.tierId)],
  });
  assert.equal(mixed.status, 201, 'two pools of one event are one purchase');
  const otherEvent = must(
    await twoEvents.api.post('/v1/integration/events', {
      merchantId: twoEvents.shopId,
      title: 'Encore',
      startsAt: new Date(w.h.clock.now().getTime() + 40 * 86_400_000).toISOString(),
    }),
    201,
  );
  const encore = await secondTier(twoEvents.api, { shopId: twoEvents.shopId, eventId: otherEvent.id }, 2);
  const across = await twoEvents.api.post('/v1/ticketing/quotes', {
    lines: [line(twoEvents.tierId), line(encore.tierId)],
  });
  assert.deepEqual([across.status, across.body.code], [400, 'invalid_input']);
  // 2 + 2 places of one pool of 3: sold out, though each line alone fits.
  const shared = await quote({ lines: [line(s.tierId, 2), line(sharing.id, 2), line(sameEvent.tierId)] });
  assert.deepEqual([shared.status, shared.body.code, shared.body.details.requested], [409, 'sold_out', 4]);
});

test('race: when one pool sells out under a multi-line reserve, it holds nothing; two pools, lines in opposite orders, never deadlock or oversell', async () => {
  const s = await shopWithTier(w.h, { capacity: 10 });
  const b = await secondTier(s.api, s, 1);
  const both = (first: string, second: string) => ({
    lines: [
      { tierId: first, quantity: 1 },
      { tierId: second, quantity: 1 },
    ],
  });
  const q1 = must(await s.api.post('/v1/ticketing/quotes', both(s.tierId, b.tierId)), 201);
  const q2 = must(await s.api.post('/v1/ticketing/quotes', both(b.tierId, s.tierId)), 201);
  const q3 = must(await s.api.post('/v1/ticketing/quotes', { tierId: b.tierId, quantity: 1 }), 201);
  const raced = await Promise.all(
    [q1, q2, q3].map((q) => s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key())),
  );
  assert.deepEqual(
    raced.map((r) => r.status).sort((x, y) => x - y),
    [201, 409, 409],
  );
  for (const r of raced) if (r.status === 409) assert.equal(r.body.code, 'sold_out');
  const won = raced.find((r) => r.status === 201)!.body.reservation;
  assert.deepEqual(await counts(b.poolId), [0, 1, 0]);
  assert.deepEqual(await counts(s.poolId), won.lines ? [9, 1, 0] : [10, 0, 0], 'the losing multi-line holds nothing');

  // Many buyers, half with the lines one way and half the other, on two pools of 4: exactly 4 hold, never a deadlock.
  const c = await shopWithTier(w.h, { capacity: 4 });
  const d = await secondTier(c.api, c, 4);
  const quotes = await Promise.all(
    Array.from({ length: 12 }, async (_, i) => {
      const body = i % 2 ? both(c.tierId, d.tierId) : both(d.tierId, c.tierId);
      return must(await c.api.post('/v1/ticketing/quotes', body), 201);
    }),
  );
  const results = await Promise.all(
    quotes.map((q) => c.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key())),
  );
  const statuses = results.map((r) => `${r.status} ${r.body.code ?? ''}`.trim());
  assert.equal(statuses.filter((x) => x === '201').length, 4, statuses.join());
  assert.equal(statuses.filter((x) => x === '409 sold_out').length, 8, statuses.join());
  assert.deepEqual(await counts(c.poolId), [0, 4, 0]);
  assert.deepEqual(await counts(d.poolId), [0, 4, 0]);
});

test('confirm checks the card scheme against every line’s tier', async () => {
  const s = await shopWithTier(w.h, { capacity: 5 });
  const pool = must(
    await s.api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: s.eventId, capacity: 5 }),
    201,
  );
  const body = { eventId: s.eventId, poolId: pool.id, name: 'VIP', priceMinor: 9000, allowedSchemes: ['mastercard'] };
  const vip = must(await s.api.post('/v1/integration/tiers', body), 201);
  const lines = [
    { tierId: s.tierId, quantity: 1 },
    { tierId: vip.id, quantity: 1 },
  ];
  const q = must(await s.api.post('/v1/ticketing/quotes', { lines, scheme: 'mastercard' }), 201);
  const { reservation } = must(await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201);
  const visa = await confirmWith(s.api, reservation.id, 'pm_sandbox_visa');
  assert.deepEqual([visa.status, visa.body.code], [422, 'scheme_not_allowed']);
  must(await confirmWith(s.api, reservation.id, 'pm_sandbox_mastercard'), 200);
});

test('a multi-line hold released by its buyer, or expired and swept, gives every line back', async () => {
  const s = await shopWithTier(w.h, { capacity: 5, holdMinutes: 5 });
  const b = await secondTier(s.api, s, 5);
  const body = {
    lines: [
      { tierId: s.tierId, quantity: 2 },
      { tierId: b.tierId, quantity: 3 },
    ],
  };
  const reserve = async () => {
    const q = must(await s.api.post('/v1/ticketing/quotes', body), 201);
    return must(await s.api.post('/v1/ticketing/reservations', { quoteId: q.quoteId }, key()), 201).reservation;
  };
  const released = await reserve();
  must(await s.api.post(`/v1/ticketing/reservations/${released.id}/release`, {}), 200);
  assert.deepEqual(
    [await counts(s.poolId), await counts(b.poolId)],
    [
      [5, 0, 0],
      [5, 0, 0],
    ],
  );
  const expiring = await reserve();
  assert.deepEqual(
    [await counts(s.poolId), await counts(b.poolId)],
    [
      [3, 2, 0],
      [2, 3, 0],
    ],
  );
  // What counts held places per pool reads every line: the sales overview and a capacity change.
  const overview = must(await s.api.get(`/v1/ticketing/sales-overview?merchantId=${s.shopId}`), 200);
  const held = overview.events[0].pools.map((p: { poolId: string; held: number }) => [p.poolId, p.held]);
  assert.deepEqual(
    new Map(held),
    new Map([
      [s.poolId, 2],
      [b.poolId, 3],
    ]),
  );
  const shrink = await s.api.patch(`/v1/integration/pools/${b.poolId}`, { capacity: 2 });
  assert.deepEqual([shrink.status, shrink.body.details?.held], [409, 3]);
  w.h.clock.advance(6 * 60_000);
  const swept = await w.h.app.sweeper.sweepExpiredHolds(w.h.clock.now(), 1000);
  assert.ok(swept.released.includes(expiring.id));
  assert.deepEqual(
    [await counts(s.poolId), await counts(b.poolId)],
    [
      [5, 0, 0],
      [5, 0, 0],
    ],
  );
});

test('MCP: an agent buys two tiers in one purchase with tool arguments only, within its allowance', async () => {
  const shop = await merchantShop(w.h, { priceMinor: 4000, capacity: 5 });
  const b = await secondTier(shop.api, shop, 5, 1500);
  const agent = await buyerWithAgent(w, shop);
  const client = await mcpHttp(w.h, agent.agentToken);
  try {
    const lines = [
      { tierId: shop.tierId, quantity: 1 },
      { tierId: b.tierId, quantity: 2 },
    ];
    const q = await callTool(client, 'quote', { lines });
    assert.ok(q.ok, JSON.stringify(q));
    assert.equal(q.output.totalMinor, 7000);
    const r = await callTool(client, 'reserve', { quoteId: q.output.quoteId });
    assert.ok(r.ok, JSON.stringify(r));
    const c = await callTool(client, 'confirm', { id: r.output.reservation.id });
    assert.ok(c.ok, JSON.stringify(c));
    assert.equal(c.output.payment.amountMinor, 7000);
    const tiers = c.output.order.tickets.map((t: { tierId: string }) => t.tierId).sort();
    assert.deepEqual(tiers, [shop.tierId, b.tierId, b.tierId].sort());
    assert.deepEqual(await counts(shop.poolId), [4, 0, 1]);
    assert.deepEqual(await counts(b.poolId), [3, 0, 2]);
    // My tickets names each ticket's tier; the merchant's order page lists both tiers.
    const mine = must(await restClient(w.h.url, agent.session).get('/v1/buyer/tickets'), 200);
    const order = mine.orders.find((x: { orderId: string }) => x.orderId === c.output.order.id);
    const names = order.tickets.map((t: { tierName?: string }) => t.tierName).sort();
    assert.deepEqual(names, ['Child', 'Child', 'General admission']);
    // The e-mail: a receipt line per tier, each ticket with its own tier.
    await w.h.app.orderMail.idle();
    const mail = w.box.last(agent.email).text;
    assert.match(mail, /1 × General admission/);
    assert.match(mail, /2 × Child/);
    assert.equal(mail.match(/Child/g)?.length, 3, mail);
    const detail = must(await shop.api.get(`/v1/ticketing/orders/${c.output.order.id}/detail`), 200);
    assert.deepEqual(
      detail.tiers.map((x: { id: string }) => x.id),
      [shop.tierId, b.tierId],
    );
  } finally {
    await client.close();
  }
});

test('ACP: a checkout session of two line items holds both tiers, pays once and completes with tickets of each', async () => {
  const s = await shopWithTier(w.h, { capacity: 10, priceMinor: 3000, feePerTicketMinor: 100 });
  const b = await secondTier(s.api, s, 10, 1500);
  const acp = acpClient(w.h, s.apiKey);
  const items = (adults: number, children: number) => [
    { id: s.tierId, quantity: adults },
    { id: b.tierId, quantity: children },
  ];
  const body = { currency: 'eur', line_items: items(2, 1), capabilities: {} };
  const created = must(await acp.post('/checkout_sessions', body), 201);
  acpValid('CheckoutSession', created);
  assert.equal(created.status, 'ready_for_payment');
  assert.deepEqual(
    created.line_items.map((l: { item: { id: string }; quantity: number; unit_amount: number }) => [
      l.item.id,
      l.quantity,
      l.unit_amount,
    ]),
    [
      [s.tierId, 2, 3000],
      [b.tierId, 1, 1500],
    ],
  );
  const totalOf = (x: { totals: { type: string; amount: number }[] }) =>
    x.totals.find((t) => t.type === 'total')!.amount;
  assert.equal(totalOf(created), 7800);
  assert.deepEqual(
    [await counts(s.poolId), await counts(b.poolId)],
    [
      [8, 2, 0],
      [9, 1, 0],
    ],
  );
  const updated = must(await acp.post(`/checkout_sessions/${created.id}`, { line_items: items(1, 2) }), 200);
  acpValid('CheckoutSession', updated);
  assert.equal(totalOf(updated), 6300);
  assert.deepEqual(
    [await counts(s.poolId), await counts(b.poolId)],
    [
      [9, 1, 0],
      [8, 2, 0],
    ],
  );
  const dup = await acp.post('/checkout_sessions', { ...body, line_items: [items(1, 1)[0], items(1, 1)[0]] });
  assert.deepEqual([dup.status, dup.body.code], [400, 'invalid_input']);
  const allowance = { max_amount: 6300, currency: 'eur', checkout_session_id: created.id, merchant_id: s.shopId };
  const token = must(await acp.post('/agentic_commerce/delegate_payment', delegateBody(allowance)), 201);
  const done = must(await acp.post(`/checkout_sessions/${created.id}/complete`, completeBody(token.id)), 200);
  assert.equal(done.status, 'completed');
  const order = must(await s.api.get(`/v1/ticketing/orders/${done.order.id}`), 200);
  assert.deepEqual(
    order.tickets.map((t: { tierId: string }) => t.tierId).sort(),
    [s.tierId, b.tierId, b.tierId].sort(),
  );
  assert.deepEqual(
    [await counts(s.poolId), await counts(b.poolId)],
    [
      [9, 0, 1],
      [8, 0, 2],
    ],
  );
});
