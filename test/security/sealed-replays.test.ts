/**
 * Secrets in replayed answers at rest (issue #10): an answer kept for idempotent replay that carries a secret field
 * (here the delegated payment token `vt_…`) is stored sealed; the replay returns the very same answer. The request's
 * stored fingerprint is keyed, so the secrets a request carried (a card number and CVC) cannot be searched for offline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { canonicalJson, sha256Hex } from '../../src/kernel/canonical-json.ts';
import { harnessPerFile } from '../support/harness-per-file.ts';
import { acpClient, completeBody, createBody, delegateBody, must, shopWithTier } from '../support/acp.ts';

const h = harnessPerFile();

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

  const rows = await h.db.execute<{ response: unknown; response_sealed: string | null }>(
    'select response, response_sealed from idempotency_keys where key = ?',
    [key],
  );
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
  const [row] = await h.db.execute<{ response: { quoteId?: string } | null; response_sealed: string | null }>(
    'select response, response_sealed from idempotency_keys where key = ?',
    [key],
  );
  assert.equal(row!.response_sealed, null);
  assert.match(String(row!.response?.quoteId), /^quo_/);
});

test('the stored request fingerprint is keyed, not a plain SHA-256; a row stored with the plain hash before still replays', async () => {
  const s = await shopWithTier(h);
  const input = { tierId: s.tierId, quantity: 1 };
  const plain = sha256Hex(canonicalJson({ tool: 'quote', input }));
  const key = randomUUID();
  must(await s.api.post('/v1/ticketing/quotes', input, { 'idempotency-key': key }), 201);
  const [row] = await h.db.execute<{ request_hash: string; scope: string }>(
    'select request_hash, scope from idempotency_keys where key = ?',
    [key],
  );
  assert.match(row!.request_hash, /^h1:[0-9a-f]{64}$/);
  assert.notEqual(row!.request_hash.slice(3), plain);

  // A row an earlier version stored (plain hash) within the retention: the same request replays, another is 422.
  const legacyKey = randomUUID();
  const stored = { quoteId: 'quo_stored_before', tierId: s.tierId };
  await h.db.execute(
    `insert into idempotency_keys (scope, key, request_hash, state, status, response, created_at) values (?, ?, ?, 'done', 201, ?::jsonb, ?)`,
    [row!.scope, legacyKey, plain, JSON.stringify(stored), h.clock.now()],
  );
  const replay = await s.api.post('/v1/ticketing/quotes', input, { 'idempotency-key': legacyKey });
  assert.equal(replay.status, 201);
  assert.deepEqual(replay.body, stored);
  assert.equal(
    (await s.api.post('/v1/ticketing/quotes', { ...input, quantity: 2 }, { 'idempotency-key': legacyKey })).status,
    422,
  );
});
