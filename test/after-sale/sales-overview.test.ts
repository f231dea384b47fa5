/**
 * get_sales_overview (issue #34, the console's Overview and live check-in counts): per pool sold / held / available,
 * revenue, sales per time bucket and check-ins, over REST and MCP, in a number of SQL statements that does not grow
 * with the orders (counted by observing the ORM's `pg` driver, as test/spine/statement-count.test.ts does).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { callTool, mcpInMemory } from '../support/mcp.ts';
import { assertInvariant } from '../support/invariant.ts';
import { buy, key, merchantShop, must, startWorld, type World } from '../support/buyers.ts';

const pg = createRequire(import.meta.resolve('@mikro-orm/postgresql'))('pg') as typeof import('pg');
// Kept to be called with its own `this` (apply below) and put back after the file.
// oxlint-disable-next-line typescript/unbound-method
const query = pg.Client.prototype.query;
let counting = false;
let sent = 0;
let w: World;
before(async () => {
  w = await startWorld();
  // The caller's rate-limit charge is not the overview's: it is a statement or none, as the caller's recent requests
  // left points taken ahead (src/http/budget-charges.ts).
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : String((args[0] as { text?: string } | undefined)?.text);
    if (counting && !text.includes('rate_limits')) sent++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
});
after(async () => {
  pg.Client.prototype.query = query;
  await w?.close();
});

async function statementsOf<T>(call: () => Promise<T>): Promise<{ n: number; result: T }> {
  sent = 0;
  counting = true;
  try {
    return { result: await call(), n: sent };
  } finally {
    counting = false;
  }
}

const ORDERS = 200;

test('the overview counts pools, revenue, hourly sales and check-ins in the same statements for 1 or 200 orders', async () => {
  const small = await merchantShop(w.h, { capacity: 10, priceMinor: 1000 });
  must(await buy(small.api, small.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200);
  const m = await merchantShop(w.h, { capacity: 400, priceMinor: 1000 });
  const t0 = new Date(Math.floor(w.h.clock.now().getTime() / 3_600_000 + 1) * 3_600_000);
  w.h.clock.set(t0);
  // 20 at a time (the clock still), 3 batches an hour: 60 orders an hour.
  const orders: any[] = [];
  for (let i = 0; i < ORDERS / 20; i++) {
    const batch = Array.from({ length: 20 }, () => buy(m.api, m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }));
    for (const res of await Promise.all(batch)) orders.push(must(res, 200).order);
    w.h.clock.advance(20 * 60_000);
  }
  const quote = must(await m.api.post('/v1/ticketing/quotes', { tierId: m.tierId, quantity: 2 }), 201);
  must(await m.api.post('/v1/ticketing/reservations', { quoteId: quote.quoteId }, key()), 201);
  must(
    await m.api.post(`/v1/ticketing/orders/${orders[0].id}/refunds`, { reason: 'x', returnToPool: true }, key()),
    200,
  );
  const door = `/v1/ticketing/events/${m.eventId}/check-ins`;
  must(await m.api.post(door, { code: orders[1].tickets[0].signedCode, device: 'd1' }), 200);
  must(await m.api.post(door, { code: orders[2].tickets[0].signedCode, device: 'd1' }), 200);
  await assertInvariant(w.h.db, m.poolId);

  const range = `from=${t0.toISOString()}&to=${new Date(t0.getTime() + 5 * 3_600_000).toISOString()}&bucket=hour`;
  // Warm what a process reads once (the API key), then count.
  must(await small.api.get(`/v1/ticketing/sales-overview?merchantId=${small.shopId}&${range}`), 200);
  const one = await statementsOf(() => small.api.get(`/v1/ticketing/sales-overview?merchantId=${small.shopId}`));
  must(await m.api.get(`/v1/ticketing/sales-overview?merchantId=${m.shopId}`), 200);
  const many = await statementsOf(() => m.api.get(`/v1/ticketing/sales-overview?merchantId=${m.shopId}&${range}`));
  assert.equal(many.n, one.n, `the overview sent ${many.n} statements for ${ORDERS} orders, ${one.n} for 1`);

  const o = must(many.result, 200);
  assert.equal(o.events.length, 1);
  const [e] = o.events;
  assert.deepEqual(e.pools, [
    { poolId: m.poolId, title: null, capacity: 400, sold: ORDERS - 1, held: 2, available: 400 - (ORDERS - 1) - 2 },
  ]);
  assert.deepEqual(e.revenue, {
    currency: 'EUR',
    grossMinor: ORDERS * 1000,
    refundedMinor: 1000,
    netMinor: (ORDERS - 1) * 1000,
  });
  assert.equal(e.sales.length, 5);
  assert.deepEqual(
    e.sales.map((s: any) => [s.start, s.orders, s.tickets, s.grossMinor]),
    [0, 1, 2, 3, 4].map((i) => {
      const n = Math.max(0, Math.min(60, ORDERS - 60 * i));
      return [new Date(t0.getTime() + i * 3_600_000).toISOString(), n, n, n * 1000];
    }),
  );
  assert.deepEqual(e.checkIns, { checkedIn: 2, valid: ORDERS - 1 });

  const daily = must(await m.api.get(`/v1/ticketing/sales-overview?merchantId=${m.shopId}&eventId=${m.eventId}`), 200);
  assert.equal(daily.bucket, 'day');
  assert.equal(
    daily.events[0].sales.reduce((n: number, s: any) => n + s.orders, 0),
    ORDERS,
  );
  const wide = await m.api.get(
    `/v1/ticketing/sales-overview?merchantId=${m.shopId}&from=2020-01-01T00:00:00Z&bucket=hour`,
  );
  assert.equal(wide.body.code, 'invalid_input');

  assert.equal((await small.api.get(`/v1/ticketing/sales-overview?merchantId=${m.shopId}`)).status, 404);
  const other = await small.api.get(`/v1/ticketing/sales-overview?merchantId=${small.shopId}&eventId=${m.eventId}`);
  assert.equal(other.status, 404);
  const mcp = await mcpInMemory(w.h, m.apiKey);
  const viaMcp = await callTool(mcp, 'get_sales_overview', { merchantId: m.shopId, eventId: m.eventId });
  assert.ok(viaMcp.ok);
  assert.deepEqual((viaMcp.output as any).events[0].checkIns, { checkedIn: 2, valid: ORDERS - 1 });
  await mcp.close();
  const smallMcp = await mcpInMemory(w.h, small.apiKey);
  const hidden = await callTool(smallMcp, 'get_sales_overview', { merchantId: m.shopId });
  assert.equal(hidden.ok ? 'ok' : hidden.code, 'not_found');
  await smallMcp.close();
});
