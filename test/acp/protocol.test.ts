/** ACP protocol rules over REST: API-Version (400 missing/unsupported) and Idempotency-Key (400/422/409, replays). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { holdRows, poll } from '../support/row-lock.ts';
import { acpClient, acpValid, createBody, delegateBody, delegateValid, must, shopWithTier } from '../support/acp.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startHarness({ SWEEP_INTERVAL_MS: '0', SANDBOX_DISPATCH_MS: '0', WEBHOOK_DISPATCH_MS: '0', RATE_LIMIT_PER_MINUTE: '100000' });
});
after(async () => {
  await h?.close();
});

test('API-Version is required: missing → 400 missing_api_version, unknown → 400 unsupported_api_version, both listing the versions', async () => {
  const s = await shopWithTier(h);
  const api = restClient(h.url, s.apiKey);
  const paths: [string, string, unknown][] = [
    ['POST', '/checkout_sessions', createBody(s.tierId)],
    ['GET', '/checkout_sessions/cs_x', undefined],
    ['POST', '/checkout_sessions/cs_x/complete', {}],
    ['POST', '/agentic_commerce/delegate_payment', delegateBody({})],
  ];
  for (const [method, path, body] of paths) {
    const missing = await api.call(method, path, body, { 'idempotency-key': 'k' });
    assert.equal(missing.status, 400, `${method} ${path}`);
    acpValid('Error', missing.body);
    assert.deepEqual(missing.body, {
      type: 'invalid_request',
      code: 'missing_api_version',
      message: missing.body.message,
      supported_versions: ['2026-04-17'],
    });
    const unknown = await api.call(method, path, body, { 'idempotency-key': 'k', 'api-version': '2025-09-29' });
    assert.equal(unknown.status, 400);
    acpValid('Error', unknown.body);
    assert.equal(unknown.body.code, 'unsupported_api_version');
    assert.deepEqual(unknown.body.supported_versions, ['2026-04-17']);
    assert.match(unknown.body.message, /2025-09-29/);
  }
  const delegateError = (await api.call('POST', '/agentic_commerce/delegate_payment', delegateBody({}), { 'idempotency-key': 'k' })).body;
  assert.equal(delegateError.type, 'invalid_request');
});

test('every POST needs an Idempotency-Key: 400 idempotency_key_required', async () => {
  const s = await shopWithTier(h);
  const api = restClient(h.url, s.apiKey);
  for (const path of ['/checkout_sessions', '/checkout_sessions/cs_x', '/checkout_sessions/cs_x/complete', '/checkout_sessions/cs_x/cancel', '/agentic_commerce/delegate_payment']) {
    const res = await api.post(path, {}, { 'api-version': '2026-04-17' });
    assert.equal(res.status, 400, path);
    acpValid('Error', res.body);
    assert.deepEqual([res.body.type, res.body.code], ['invalid_request', 'idempotency_key_required'], path);
  }
  const dp = await api.post('/agentic_commerce/delegate_payment', delegateBody({}), { 'api-version': '2026-04-17' });
  delegateValid('Error', dp.body);
});

test(`${verifies('CONTRACT-idempotency-replay', 'CONTRACT-idempotency-conflict')}same key + same body replays (same status, Idempotent-Replayed: true); a different body is 422; keys are per endpoint`, async () => {
  const s = await shopWithTier(h, { capacity: 5 });
  const acp = acpClient(h, s.apiKey);
  const body = createBody(s.tierId);
  const first = await acp.post('/checkout_sessions', body, { 'idempotency-key': 'create-1' });
  assert.equal(first.status, 201);
  assert.equal(first.headers.get('idempotent-replayed'), null);
  const reordered = { capabilities: body.capabilities, buyer: body.buyer, line_items: body.line_items, currency: body.currency };
  const again = await acp.post('/checkout_sessions', reordered, { 'idempotency-key': 'create-1', 'request-id': 'other' });
  assert.equal(again.status, 201, 'the original status');
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.body, first.body);
  assert.deepEqual([(await assertInvariant(h.db, s.poolId)).held], [1], 'the replay held nothing more');

  const conflict = await acp.post('/checkout_sessions', createBody(s.tierId, {}, 2), { 'idempotency-key': 'create-1' });
  assert.equal(conflict.status, 422);
  acpValid('Error', conflict.body);
  assert.deepEqual([conflict.body.type, conflict.body.code], ['invalid_request', 'idempotency_conflict']);
  const withNull = await acp.post('/checkout_sessions', { ...body, metadata: { note: null } }, { 'idempotency-key': 'create-1' });
  assert.equal(withNull.status, 422, 'a field set to null is not the same body as the field absent');

  const update = await acp.post(`/checkout_sessions/${first.body.id}`, { buyer: { email: 'b@example.test' } }, { 'idempotency-key': 'create-1' });
  assert.equal(update.status, 200, 'the same key on another endpoint is independent');
  const failed = await acp.post('/checkout_sessions/cs_missing', { buyer: { email: 'b@example.test' } }, { 'idempotency-key': 'u-404' });
  assert.equal(failed.status, 404);
  const failedAgain = await acp.post('/checkout_sessions/cs_missing', { buyer: { email: 'b@example.test' } }, { 'idempotency-key': 'u-404' });
  assert.equal(failedAgain.status, 404);
  assert.equal(failedAgain.headers.get('idempotent-replayed'), 'true', '4xx outcomes are replayed too');

  const token = await acp.post('/agentic_commerce/delegate_payment', delegateBody({ checkout_session_id: first.body.id, merchant_id: s.shopId }), { 'idempotency-key': 'dp' });
  const tokenAgain = await acp.post('/agentic_commerce/delegate_payment', delegateBody({ checkout_session_id: first.body.id, merchant_id: s.shopId }), { 'idempotency-key': 'dp' });
  assert.deepEqual([token.status, tokenAgain.status, tokenAgain.headers.get('idempotent-replayed')], [201, 201, 'true']);
  assert.equal(tokenAgain.body.id, token.body.id, 'no second token is minted');
  const tokenConflict = await acp.post('/agentic_commerce/delegate_payment', delegateBody({ max_amount: 1 }), { 'idempotency-key': 'dp' });
  assert.equal(tokenConflict.status, 422);
  delegateValid('Error', tokenConflict.body);
});

test(`${verifies('CONTRACT-idempotency-in-flight')}a request still running with the same key is 409 idempotency_in_flight with Retry-After`, async () => {
  const s = await shopWithTier(h);
  const acp = acpClient(h, s.apiKey);
  const session = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  // Hold the session row locked from outside, so the first update waits inside its transaction.
  const holder = await holdRows(h.dbUrl, 'select id from acp_checkout_sessions where id = $1 for update', [session.id]);
  try {
    const body = { buyer: { email: 'slow@example.test' } };
    const first = acp.post(`/checkout_sessions/${session.id}`, body, { 'idempotency-key': 'slow-1' });
    const claimed = await poll(async () => (await holder.client.query(`select 1 from idempotency_keys where key = 'slow-1' and state = 'in_flight'`)).rowCount);
    assert.ok(claimed, 'the first request claimed its key and is waiting on the row lock');
    const second = await acp.post(`/checkout_sessions/${session.id}`, body, { 'idempotency-key': 'slow-1' });
    assert.equal(second.status, 409);
    acpValid('Error', second.body);
    assert.deepEqual([second.body.type, second.body.code], ['invalid_request', 'idempotency_in_flight']);
    assert.equal(second.headers.get('retry-after'), '1');
    await holder.release();
    const done = await first;
    assert.equal(done.status, 200);
    assert.equal(done.body.buyer.email, 'slow@example.test');
    const replay = await acp.post(`/checkout_sessions/${session.id}`, body, { 'idempotency-key': 'slow-1' });
    assert.deepEqual([replay.status, replay.headers.get('idempotent-replayed')], [200, 'true']);
  } finally {
    await holder.end();
  }
});
