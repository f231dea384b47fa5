/**
 * An LLM in a stock MCP host sets tool arguments only: with the real SDK client over Streamable HTTP and over stdio,
 * quote → reserve → confirm completes without `_meta`, and every call replayed after a lost response leaves exactly
 * one hold and one charge (natural idempotency); the optional `idempotencyKey` argument replays a stored outcome.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { callTool } from '../support/mcp.ts';
import type { Outcome } from '../support/outcome.ts';
import { count, shopWithTier, startSpineHarness } from '../support/spine.ts';
import { serverEnvFor } from '../support/database.ts';
import { verifies } from '../support/requirements.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

/** An SDK client over Streamable HTTP whose next POST reaches the server but whose response is lost on the way back. */
async function lossyHttpClient(token: string): Promise<{ client: Client; loseNextResponse(): void }> {
  let lose = false;
  const lossyFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (lose && init?.method === 'POST') {
      lose = false;
      await res.arrayBuffer(); // the server finished the call; only its answer is lost
      throw new TypeError('fetch failed: connection reset before the response arrived');
    }
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', h.url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: lossyFetch,
  });
  const client = new Client({ name: 'lossy-host', version: '0' });
  await client.connect(transport);
  return { client, loseNextResponse: () => (lose = true) };
}

/** Calls a tool whose response is lost, then retries it with the same arguments: the retry's outcome. */
async function afterLostResponse(
  c: { client: Client; loseNextResponse(): void },
  tool: string,
  args: Record<string, unknown>,
): Promise<Outcome> {
  c.loseNextResponse();
  await assert.rejects(callTool(c.client, tool, args), /connection reset/);
  return callTool(c.client, tool, args);
}

/** Exactly one hold on the pool, one payment for it and one charge at the sandbox provider. */
async function assertOneHoldOneCharge(poolId: string, reservationId: string, quantity: number): Promise<void> {
  assert.equal(await count(h.db, 'from reservations where pool_id = ?', [poolId]), 1);
  assert.equal(await count(h.db, 'from payments where reservation_id = ?', [reservationId]), 1);
  assert.equal(
    await count(
      h.db,
      'from sandbox_charges c join payments p on p.id = c.payment_reference where p.reservation_id = ?',
      [reservationId],
    ),
    1,
  );
  const c = await assertInvariant(h.db, poolId);
  assert.deepEqual([c.held, c.sold], [0, quantity]);
}

test('over Streamable HTTP, arguments only: each call replayed after a lost response leaves one hold and one charge', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const host = await lossyHttpClient(s.apiKey);
  try {
    const q = await afterLostResponse(host, 'quote', { tierId: s.tierId, quantity: 2 });
    assert.ok(q.ok, JSON.stringify(q));
    const r = await afterLostResponse(host, 'reserve', { quoteId: q.output.quoteId });
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal(r.output.reservation.state, 'held');
    const id = r.output.reservation.id;
    const c = await afterLostResponse(host, 'confirm', { id, paymentMethod: 'pm_sandbox_visa' });
    assert.ok(c.ok, JSON.stringify(c));
    assert.equal(c.output.reservation.state, 'completed');
    assert.equal(c.output.order.tickets.length, 2);
    // Once more, each: the same hold, the same order; nothing new is held or charged.
    const again = await callTool(host.client, 'reserve', { quoteId: q.output.quoteId });
    assert.deepEqual(
      [again.ok && again.output.reservation.id, again.ok && again.output.order.id],
      [id, c.output.order.id],
    );
    const paid = await callTool(host.client, 'authorize_payment', {
      reservationId: id,
      paymentMethod: 'pm_sandbox_visa',
    });
    assert.ok(paid.ok && paid.output.payment.id === c.output.payment.id, JSON.stringify(paid));
    await assertOneHoldOneCharge(s.poolId, id, 2);
  } finally {
    await host.client.close();
  }
});

test(`${verifies('CONTRACT-idempotency-argument')}over Streamable HTTP the idempotencyKey argument replays the stored outcome and is shown in the input schema`, async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const host = await lossyHttpClient(s.apiKey);
  try {
    const { tools } = await host.client.listTools();
    const reserve = tools.find((t) => t.name === 'reserve')!;
    assert.deepEqual(Object.keys(reserve.inputSchema.properties ?? {}), ['quoteId', 'attendees', 'idempotencyKey']);
    assert.deepEqual(reserve.inputSchema.required, ['quoteId']);
    const q = await callTool(host.client, 'quote', { tierId: s.tierId, quantity: 1 });
    assert.ok(q.ok);
    const idempotencyKey = randomUUID();
    const r = await afterLostResponse(host, 'reserve', { quoteId: q.output.quoteId, idempotencyKey });
    assert.ok(r.ok && r.replayed, JSON.stringify(r));
    // The same key in _meta and as the argument is one key; two different keys are refused.
    const both = await callTool(
      host.client,
      'reserve',
      { quoteId: q.output.quoteId, idempotencyKey },
      { idempotencyKey: randomUUID() },
    );
    assert.equal(!both.ok && both.code, 'invalid_input');
    // A key is the caller's: used again for another call it is a conflict, and the refusal names the argument.
    const conflict = await callTool(host.client, 'create_pool', { merchantId: s.shopId, capacity: 1, idempotencyKey });
    assert.equal(!conflict.ok && conflict.code, 'idempotency_conflict');
    const bad = await callTool(host.client, 'reserve', { quoteId: q.output.quoteId, idempotencyKey: 'x'.repeat(256) });
    assert.equal(!bad.ok && bad.code, 'invalid_input');
    assert.match(!bad.ok ? bad.message : '', /idempotencyKey argument/);
    await assertInvariant(h.db, s.poolId);
  } finally {
    await host.client.close();
  }
});

test('confirm replayed while the payment is pending returns that payment (202 outcome); after a decline it is a new attempt', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const host = await lossyHttpClient(s.apiKey);
  try {
    const q = await callTool(host.client, 'quote', { tierId: s.tierId, quantity: 1 });
    const r = await callTool(host.client, 'reserve', { quoteId: q.ok && q.output.quoteId });
    assert.ok(r.ok);
    const id = r.output.reservation.id;
    const declined = await afterLostResponse(host, 'confirm', { id, paymentMethod: 'pm_sandbox_declined' });
    // The decline's answer was lost; the retry is a new attempt, declined again, and the hold stays.
    assert.equal(!declined.ok && declined.code, 'payment_declined');
    assert.equal(await count(h.db, 'from payments where reservation_id = ?', [id]), 2);
    const pending = await afterLostResponse(host, 'confirm', { id, paymentMethod: 'pm_sandbox_async_success' });
    assert.ok(pending.ok && pending.output.payment.state === 'pending', JSON.stringify(pending));
    const other = await callTool(host.client, 'confirm', { id, paymentMethod: 'pm_sandbox_visa' });
    assert.ok(
      other.ok && other.output.payment.id === pending.output.payment.id,
      'the pending payment, never a second charge',
    );
    assert.equal(await count(h.db, 'from payments where reservation_id = ?', [id]), 3);
    // Another caller gets the usual refusal.
    const stranger = await shopWithTier(h);
    const foreign = await lossyHttpClient(stranger.apiKey);
    try {
      const refused = await callTool(foreign.client, 'confirm', { id, paymentMethod: 'pm_sandbox_visa' });
      assert.equal(!refused.ok && refused.code, 'not_found');
    } finally {
      await foreign.client.close();
    }
  } finally {
    await host.client.close();
  }
});

test('over stdio (tessera mcp), arguments only: the purchase completes and replays leave one hold and one charge', async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'src', 'cli.ts'), 'mcp'],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...serverEnvFor(h.dbUrl), TESSERA_TOKEN: s.apiKey, LOG_LEVEL: 'warn' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'stdio-host', version: '0' });
  await client.connect(transport);
  try {
    const twice = async (tool: string, args: Record<string, unknown>) => {
      const first = await callTool(client, tool, args);
      const second = await callTool(client, tool, args);
      assert.ok(first.ok && second.ok, JSON.stringify([first, second]));
      return [first.output, second.output];
    };
    const [q] = await twice('quote', { tierId: s.tierId, quantity: 1 });
    const [r1, r2] = await twice('reserve', { quoteId: q.quoteId });
    assert.equal(r2.reservation.id, r1.reservation.id);
    const [c1, c2] = await twice('confirm', { id: r1.reservation.id, paymentMethod: 'pm_sandbox_visa' });
    assert.deepEqual([c1.reservation.state, c2.order.id, c2.payment.id], ['completed', c1.order.id, c1.payment.id]);
    await assertOneHoldOneCharge(s.poolId, r1.reservation.id, 1);
  } finally {
    await client.close();
  }
});
