/**
 * Secrets in replayed answers at rest (issue #10): an answer kept for idempotent replay that carries a secret field
 * (here the delegated payment token `vt_…`) is stored sealed; the replay returns the very same answer.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startHarness, type Harness } from '../support/harness.ts';
import { acpClient, completeBody, createBody, delegateBody, must, shopWithTier } from '../acp/support.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ SWEEP_INTERVAL_MS: '0', SANDBOX_DISPATCH_MS: '0', WEBHOOK_DISPATCH_MS: '0', RATE_LIMIT_PER_MINUTE: '100000' });
});
after(async () => {
  await h?.close();
});

test('a delegated token created with an Idempotency-Key is not in the database in clear, and the replay returns it', async () => {
  const s = await shopWithTier(h, { priceMinor: 4000 });
  const acp = acpClient(h, s.apiKey);
  const session = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  const body = delegateBody({ max_amount: 4000, checkout_session_id: session.id, merchant_id: s.shopId });
  const key = randomUUID();
  const first = await acp.post('/agentic_commerce/delegate_payment', body, { 'idempotency-key': key });
  assert.equal(first.status, 201, JSON.stringify(first.body));
  const token = first.body.id as string;
  assert.match(token, /^vt_/);

  const rows = await h.db.execute<{ response: unknown; response_sealed: string | null }>('select response, response_sealed from idempotency_keys where key = ?', [key]);
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.response, null);
  assert.match(String(rows[0]!.response_sealed), /^v1\./);
  const everything = JSON.stringify(await h.db.execute('select * from idempotency_keys'));
  assert.equal(everything.includes(token), false, 'the token is stored in clear');
  assert.equal(everything.includes(token.slice(3)), false);

  const replay = await acp.post('/agentic_commerce/delegate_payment', body, { 'idempotency-key': key });
  assert.equal(replay.status, 201);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(replay.body, first.body);
  // A replay is not a second token: the one token pays once.
  must(await acp.post(`/checkout_sessions/${session.id}/complete`, completeBody(token)), 200);
});

test('an answer without a secret field stays readable at rest', async () => {
  const s = await shopWithTier(h);
  const key = randomUUID();
  must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 }, { 'idempotency-key': key }), 201);
  const [row] = await h.db.execute<{ response: { quoteId?: string } | null; response_sealed: string | null }>('select response, response_sealed from idempotency_keys where key = ?', [key]);
  assert.equal(row!.response_sealed, null);
  assert.match(String(row!.response?.quoteId), /^quo_/);
});
