/** The core spine (quote → reserve → confirm, sync) over MCP (in memory and Streamable HTTP) and A2A, as over REST. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { a2aClient, runSkill } from '../support/a2a.ts';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { callTool, MCP_SURFACES } from '../support/mcp.ts';
import { shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

type Call = (
  name: string,
  input: Record<string, unknown>,
  idempotencyKey?: string,
) => Promise<{ ok: boolean; output?: any; code?: string }>;

async function runSpine(call: Call, poolId: string, tierId: string): Promise<void> {
  const q = await call('quote', { tierId, quantity: 2 });
  assert.ok(q.ok, JSON.stringify(q));
  // Over MCP and A2A the key is optional: the spine is naturally idempotent, so a retry without one is safe.
  const r = await call('reserve', { quoteId: q.output.quoteId });
  assert.ok(r.ok, JSON.stringify(r));
  const again = await call('reserve', { quoteId: q.output.quoteId }, randomUUID());
  assert.equal(again.output.reservation.id, r.output.reservation.id);
  assert.equal(r.output.reservation.state, 'held');
  await assertInvariant(h.db, poolId);
  const declined = await call(
    'confirm',
    { id: r.output.reservation.id, paymentMethod: 'pm_sandbox_declined' },
    randomUUID(),
  );
  assert.equal(declined.code, 'payment_declined');
  const c = await call('confirm', { id: r.output.reservation.id, paymentMethod: 'pm_sandbox_visa' }, randomUUID());
  assert.ok(c.ok, JSON.stringify(c));
  assert.equal(c.output.reservation.state, 'completed');
  assert.equal(c.output.order.tickets.length, 2);
  const got = await call('get_order', { id: c.output.order.id });
  assert.deepEqual(got.output, c.output.order);
  const counts = await assertInvariant(h.db, poolId);
  assert.equal(counts.sold, 2);
}

for (const [name, connect] of Object.entries(MCP_SURFACES)) {
  test(`quote → reserve → confirm over ${name}`, async () => {
    const s = await shopWithTier(h, { capacity: 4 });
    const client = await connect(h, s.apiKey);
    try {
      await runSpine(
        (tool, input, idempotencyKey) => callTool(client, tool, input, idempotencyKey ? { idempotencyKey } : {}),
        s.poolId,
        s.tierId,
      );
    } finally {
      await client.close();
    }
  });
}

test('quote → reserve → confirm over A2A', async () => {
  const s = await shopWithTier(h, { capacity: 4 });
  const client = await a2aClient(h, s.apiKey);
  await runSpine((tool, input, idempotencyKey) => runSkill(client, tool, input, idempotencyKey), s.poolId, s.tierId);
});

test('an async confirm over MCP returns the pending purchase with where to poll', async () => {
  const s = await shopWithTier(h);
  const client = await MCP_SURFACES['mcp in-memory'](h, s.apiKey);
  try {
    const q: any = await callTool(client, 'quote', { tierId: s.tierId, quantity: 1 });
    const r: any = await callTool(client, 'reserve', { quoteId: q.output.quoteId }, { idempotencyKey: randomUUID() });
    const c: any = await callTool(
      client,
      'confirm',
      { id: r.output.reservation.id, paymentMethod: 'pm_sandbox_async_success' },
      { idempotencyKey: randomUUID() },
    );
    assert.ok(c.ok);
    assert.equal(c.output.payment.state, 'pending');
    assert.match(c.output.pollUrl, /\/v1\/ticketing\/reservations\/rsv_/);
    h.clock.advance(3000);
    await h.app.services.payments.settleDue();
    const done: any = await callTool(client, 'get_reservation', { id: r.output.reservation.id });
    assert.equal(done.output.reservation.state, 'completed');
  } finally {
    await client.close();
  }
});
