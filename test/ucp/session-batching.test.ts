/**
 * ACP and UCP checkout sessions hold their tickets on the reserve tool's hot-pool batcher
 * (src/domain/acp/session-hold.ts): a session's hold joins the same batch as concurrent `reserve` calls of the
 * process, one conditional update of the pool row for all of them. The batch is forced without timing as in
 * test/spine/hot-pool.test.ts (the test holds the pool row until every call is queued). A session changed while its
 * hold is being made keeps only the hold of its last change.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { asOneBatch, until } from '../support/batching.ts';
import { holdRows } from '../support/row-lock.ts';
import { acpClient, createBody, must, shopWithTier, type Shop } from '../support/acp.ts';

let h: Harness;
let AGENT: Record<string, string>;
let endpoint = ''; // the UCP REST binding's path, from the profile
before(async () => {
  h = await startHarness({
    SWEEP_INTERVAL_MS: '0',
    RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_LOOPBACK: 'true', // the platform profile is this server's own /.well-known/ucp, on loopback
    RESERVE_BATCHES_IN_FLIGHT: '1',
  });
  AGENT = { 'ucp-agent': `profile="${h.url}/.well-known/ucp"` };
  const profile = must(await restClient(h.url).get('/.well-known/ucp'), 200);
  const rest = profile.ucp.services['dev.ucp.shopping'].find((s: { transport: string }) => s.transport === 'rest');
  endpoint = new URL(rest.endpoint).pathname;
});
after(async () => {
  await h?.close();
});

const ucpCreate = (s: Shop, quantity: number) => () =>
  restClient(h.url, s.apiKey).post(
    `${endpoint}/checkout-sessions`,
    { line_items: [{ item: { id: s.tierId }, quantity }] },
    { ...AGENT, 'idempotency-key': randomUUID() },
  );
const acpCreate = (s: Shop, quantity: number) => () =>
  acpClient(h, s.apiKey).post('/checkout_sessions', createBody(s.tierId, {}, quantity));
const reserve = (s: Shop, quoteId: string) => () =>
  s.api.post('/v1/ticketing/reservations', { quoteId }, { 'idempotency-key': randomUUID() });
const quote = async (s: Shop, quantity: number): Promise<string> =>
  must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity }), 201).quoteId;

test('UCP and ACP session holds join one batch with reserve calls; the one that no longer fits is refused', async () => {
  const s = await shopWithTier(h, { capacity: 6 });
  const [first, middle] = [await quote(s, 1), await quote(s, 1)];
  const [r1, ucp, acp, r2, ucp2] = await asOneBatch(h, s.poolId, [
    reserve(s, first),
    ucpCreate(s, 2),
    acpCreate(s, 2),
    reserve(s, middle),
    ucpCreate(s, 2), // 8 places asked of 6: the session whose hold is decided last is refused
  ]);
  assert.equal(r1!.status, 201);
  assert.equal(r2!.status, 201);
  const sessions = [must(ucp!, 201), must(acp!, 201), must(ucp2!, 201)];
  const ready = sessions.filter((x) => x.status === 'ready_for_complete' || x.status === 'ready_for_payment');
  const refused = sessions.filter((x) => x.status === 'incomplete' || x.status === 'not_ready_for_payment');
  assert.deepEqual([ready.length, refused.length], [2, 1], JSON.stringify(sessions.map((x) => x.status)));
  assert.equal(refused[0].messages[0].code, 'out_of_stock');
  const counts = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([counts.held, counts.available], [6, 0]);
});

test('a session updated while its hold is being made keeps only the last change’s hold', async () => {
  const s = await shopWithTier(h, { capacity: 10 });
  const acp = acpClient(h, s.apiKey);
  const created = must(await acp.post('/checkout_sessions', createBody(s.tierId, {}, 1)), 201);
  // Both updates wait on the session's row, then race through their quotes, the batcher and the last step.
  const lock = await holdRows(h.dbUrl, 'select id from acp_checkout_sessions where id = $1 for update', [created.id]);
  let updates;
  try {
    updates = [2, 3].map((quantity) =>
      acp.post(`/checkout_sessions/${created.id}`, { line_items: [{ id: s.tierId, quantity }] }),
    );
    let waiting = 0;
    await until(async () => (waiting = await lock.waiters()) >= 2, `both updates waiting (${waiting})`);
    await lock.release();
  } finally {
    await lock.end();
  }
  const answers = (await Promise.all(updates)).map((r) => must(r, 200));
  for (const a of answers) assert.ok(['ready_for_payment', 'not_ready_for_payment'].includes(a.status), a.status);
  const now = must(await acp.get(`/checkout_sessions/${created.id}`), 200);
  assert.equal(now.status, 'ready_for_payment');
  const quantity = now.line_items[0].quantity as number;
  assert.ok(quantity === 2 || quantity === 3, `the session holds one update's quantity (${quantity})`);
  const counts = await assertInvariant(h.db, s.poolId);
  assert.equal(counts.held, quantity, 'one hold: the one the session names');
  // Canceled, it gives that hold back.
  must(await acp.post(`/checkout_sessions/${created.id}/cancel`, {}), 200);
  assert.deepEqual((await assertInvariant(h.db, s.poolId)).held, 0);
});
