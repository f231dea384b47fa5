/**
 * Issue #37, "what must show": an MCP host that sets tool arguments only buys two tiers in one purchase with a
 * discount code and attendee names (quote with lines and discountCode → reserve with attendees → confirm), over
 * Streamable HTTP with the real MCP SDK client; the order, its tickets' attendees and the discount are checked.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { callTool, mcpHttp } from '../support/mcp.ts';
import { must, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

type Out = Record<string, any>;

test('an MCP host buys two tiers with a discount code and attendee names, with tool arguments only', async () => {
  const s = await shopWithTier(h, { capacity: 10, priceMinor: 5000 });
  const pool = must(
    await s.api.post('/v1/integration/pools', { merchantId: s.shopId, eventId: s.eventId, capacity: 10 }),
    201,
  );
  const named = must(
    await s.api.post('/v1/integration/tiers', {
      eventId: s.eventId,
      poolId: pool.id,
      name: 'Named seats',
      priceMinor: 3000,
      attendeeForm: { name: 'required', questions: [] },
    }),
    201,
  );
  must(
    await s.api.post('/v1/integration/discount-codes', {
      merchantId: s.shopId,
      code: 'spring-10',
      kind: 'percent',
      percentOff: 10,
      maxUses: 5,
    }),
    201,
  );

  const mcp = await mcpHttp(h, s.apiKey);
  try {
    const lines = [
      { tierId: s.tierId, quantity: 1 },
      { tierId: named.id, quantity: 2 },
    ];
    const quoted = await callTool(mcp, 'quote', { lines, discountCode: 'Spring-10' });
    assert.ok(quoted.ok, JSON.stringify(quoted));
    const quote = quoted.output as Out;
    assert.equal(quote.discountCode, 'SPRING-10');
    assert.equal(quote.discountMinor, 1100, '10% of 5000 + 2 × 3000');
    assert.deepEqual(
      quote.attendeeQuestions.map((q: Out) => [q.tierId, q.attendeeName]),
      [[named.id, 'required']],
    );

    const attendees = [
      { tierId: named.id, index: 0, name: 'Ada Lovelace' },
      { tierId: named.id, index: 1, name: 'Grace Hopper' },
    ];
    const held = await callTool(mcp, 'reserve', { quoteId: quote.quoteId, attendees, idempotencyKey: 'mcp-full-r1' });
    assert.ok(held.ok, JSON.stringify(held));
    const reservation = (held.output as Out).reservation;
    assert.equal(reservation.discountMinor, 1100);
    assert.equal(reservation.totalMinor, quote.totalMinor);

    const paid = await callTool(mcp, 'confirm', {
      id: reservation.id,
      paymentMethod: 'pm_sandbox_visa',
      idempotencyKey: 'mcp-full-c1',
    });
    assert.ok(paid.ok, JSON.stringify(paid));
    const out = paid.output as Out;
    assert.equal(out.reservation.state, 'completed');
    assert.equal(out.payment.amountMinor, 11_000 - 1100 + quote.feesMinor);

    const got = await callTool(mcp, 'get_order', { id: out.order.id });
    assert.ok(got.ok, JSON.stringify(got));
    const order = got.output as Out;
    assert.equal(order.totalMinor, quote.totalMinor);
    const tickets = order.tickets as Out[];
    assert.equal(tickets.length, 3);
    assert.deepEqual(
      tickets.filter((t) => t.tierId === named.id).map((t) => t.attendeeName),
      ['Ada Lovelace', 'Grace Hopper'],
    );
    assert.deepEqual(
      tickets.filter((t) => t.tierId === s.tierId).map((t) => t.attendeeName),
      [undefined],
    );
    const code = must(await s.api.get(`/v1/integration/discount-codes/${quote.discountCodeId}`), 200);
    assert.equal(code.uses, 1, 'the purchase took one use of the code');
  } finally {
    await mcp.close();
  }
});
