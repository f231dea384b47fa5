/** ACP protocol rules over REST: API-Version (400 missing/unsupported) and Idempotency-Key (400/422/409, replays). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { harnessPerFile } from '../support/harness-per-file.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { holdRows, poll } from '../support/row-lock.ts';
import {
  ACP_VERSION,
  acpClient,
  acpValid,
  createBody,
  delegateBody,
  delegateValid,
  must,
  shopWithTier,
} from '../support/acp.ts';
import { mcpHttp } from '../support/mcp.ts';
import { verifies } from '../support/requirements.ts';

const h = harnessPerFile();

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
    // delegate_payment's Error.code is a closed enum: our code leads the message of an invalid_card (docs/acp.md).
    const delegate = path === '/agentic_commerce/delegate_payment';
    const codeOf = (e: { code: string; message: string }) => (delegate ? /^(\w+): /.exec(e.message)?.[1] : e.code);
    const missing = await api.call(method, path, body, { 'idempotency-key': 'k' });
    assert.equal(missing.status, 400, `${method} ${path}`);
    (delegate ? delegateValid : acpValid)('Error', missing.body);
    assert.deepEqual(missing.body, {
      type: 'invalid_request',
      code: delegate ? 'invalid_card' : 'missing_api_version',
      message: missing.body.message,
      supported_versions: ['2026-04-17'],
    });
    assert.equal(codeOf(missing.body), 'missing_api_version');
    const unknown = await api.call(method, path, body, { 'idempotency-key': 'k', 'api-version': '2025-09-29' });
    assert.equal(unknown.status, 400);
    (delegate ? delegateValid : acpValid)('Error', unknown.body);
    assert.equal(codeOf(unknown.body), 'unsupported_api_version');
    assert.deepEqual(unknown.body.supported_versions, ['2026-04-17']);
    assert.match(unknown.body.message, /2025-09-29/);
  }
  const delegateError = (
    await api.call('POST', '/agentic_commerce/delegate_payment', delegateBody({}), { 'idempotency-key': 'k' })
  ).body;
  assert.equal(delegateError.type, 'invalid_request');
});

test('every POST needs an Idempotency-Key: 400 idempotency_key_required', async () => {
  const s = await shopWithTier(h);
  const api = restClient(h.url, s.apiKey);
  for (const path of [
    '/checkout_sessions',
    '/checkout_sessions/cs_x',
    '/checkout_sessions/cs_x/complete',
    '/checkout_sessions/cs_x/cancel',
    '/agentic_commerce/delegate_payment',
  ]) {
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
  const reordered = {
    capabilities: body.capabilities,
    buyer: body.buyer,
    line_items: body.line_items,
    currency: body.currency,
  };
  const again = await acp.post('/checkout_sessions', reordered, {
    'idempotency-key': 'create-1',
    'request-id': 'other',
  });
  assert.equal(again.status, 201, 'the original status');
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(again.body, first.body);
  assert.deepEqual([(await assertInvariant(h.db, s.poolId)).held], [1], 'the replay held nothing more');

  const conflict = await acp.post('/checkout_sessions', createBody(s.tierId, {}, 2), { 'idempotency-key': 'create-1' });
  assert.equal(conflict.status, 422);
  acpValid('Error', conflict.body);
  assert.deepEqual([conflict.body.type, conflict.body.code], ['invalid_request', 'idempotency_conflict']);
  const withNull = await acp.post(
    '/checkout_sessions',
    { ...body, metadata: { note: null } },
    { 'idempotency-key': 'create-1' },
  );
  assert.equal(withNull.status, 422, 'a field set to null is not the same body as the field absent');

  const update = await acp.post(
    `/checkout_sessions/${first.body.id}`,
    { buyer: { email: 'b@example.test' } },
    { 'idempotency-key': 'create-1' },
  );
  assert.equal(update.status, 200, 'the same key on another endpoint is independent');
  const failed = await acp.post(
    '/checkout_sessions/cs_missing',
    { buyer: { email: 'b@example.test' } },
    { 'idempotency-key': 'u-404' },
  );
  assert.equal(failed.status, 404);
  const failedAgain = await acp.post(
    '/checkout_sessions/cs_missing',
    { buyer: { email: 'b@example.test' } },
    { 'idempotency-key': 'u-404' },
  );
  assert.equal(failedAgain.status, 404);
  assert.equal(failedAgain.headers.get('idempotent-replayed'), 'true', '4xx outcomes are replayed too');

  const token = await acp.post(
    '/agentic_commerce/delegate_payment',
    delegateBody({ checkout_session_id: first.body.id, merchant_id: s.shopId }),
    { 'idempotency-key': 'dp' },
  );
  const tokenAgain = await acp.post(
    '/agentic_commerce/delegate_payment',
    delegateBody({ checkout_session_id: first.body.id, merchant_id: s.shopId }),
    { 'idempotency-key': 'dp' },
  );
  assert.deepEqual(
    [token.status, tokenAgain.status, tokenAgain.headers.get('idempotent-replayed')],
    [201, 201, 'true'],
  );
  assert.equal(tokenAgain.body.id, token.body.id, 'no second token is minted');
  const tokenConflict = await acp.post('/agentic_commerce/delegate_payment', delegateBody({ max_amount: 1 }), {
    'idempotency-key': 'dp',
  });
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
    const claimed = await poll(
      async () =>
        (await holder.client.query(`select 1 from idempotency_keys where key = 'slow-1' and state = 'in_flight'`))
          .rowCount,
    );
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

test("issue #36 (5): each delegate_payment refusal has a code from the schema's closed enum (REST, MCP)", async () => {
  const s = await shopWithTier(h);
  const acp = acpClient(h, s.apiKey);
  const session = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  const DP = '/agentic_commerce/delegate_payment';
  const missing = delegateBody({ checkout_session_id: 'cs_missing0000000', merchant_id: s.shopId });
  const body = delegateBody({ checkout_session_id: session.id, merchant_id: s.shopId });
  const refusals = [
    // an unknown session (not_found), a field we do not know (unknown_field), a card the sandbox refuses
    await acp.post(DP, missing),
    await acp.post(DP, { ...body, extra: 1 }),
    await acp.post(DP, delegateBody({ checkout_session_id: session.id, merchant_id: s.shopId }, '4111111111111112')),
    await restClient(h.url, 'tsk_unknown').post('/agentic_commerce/delegate_payment', delegateBody({}), {
      'api-version': ACP_VERSION,
      'idempotency-key': 'k',
    }),
  ];
  assert.deepEqual(
    refusals.map((r) => r.status),
    [404, 400, 400, 401],
  );
  for (const r of refusals) delegateValid('Error', r.body, JSON.stringify(r.body));
  assert.deepEqual(
    refusals.map((r) => r.body.code),
    ['invalid_card', 'invalid_card', 'invalid_card', 'invalid_card'],
  );
  assert.match(refusals[0]!.body.message, /^not_found: /);
  assert.match(refusals[1]!.body.message, /^unknown_field: /);
  assert.match(refusals[3]!.body.message, /^unauthenticated: /);
  // The idempotency codes are in the enum and kept.
  const key = randomUUID();
  must(await acp.post(DP, body, { 'idempotency-key': key }), 201);
  const conflict = await acp.post(DP, { ...body, metadata: { other: 'x' } }, { 'idempotency-key': key });
  assert.deepEqual([conflict.status, conflict.body.code], [422, 'idempotency_conflict']);
  delegateValid('Error', conflict.body);
  // Over MCP, the binding's JSON-RPC error carries the same Error.
  const client = await mcpHttp(h, s.apiKey);
  try {
    const err = await client
      .callTool({ name: 'delegate_payment', arguments: { meta: { api_version: ACP_VERSION }, payload: missing } })
      .then(
        () => undefined,
        (e: { data?: any }) => e.data,
      );
    delegateValid('Error', err);
    assert.equal(err.code, 'invalid_card');
    assert.match(err.message, /^not_found: /);
  } finally {
    await client.close();
  }
});

test('issue #36 (5): a 405 carries Allow (RFC 9110) and Request-Id is echoed on every ACP answer', async () => {
  const s = await shopWithTier(h);
  const acp = acpClient(h, s.apiKey);
  const session = must(await acp.post('/checkout_sessions', createBody(s.tierId)), 201);
  must(await acp.post(`/checkout_sessions/${session.id}/cancel`), 200);
  // Cancelling a canceled session: its cancel supports no method now, so an empty Allow.
  const again = await acp.post(`/checkout_sessions/${session.id}/cancel`, undefined, { 'request-id': 'req-1' });
  assert.equal(again.status, 405);
  assert.equal(again.headers.get('allow'), '');
  assert.equal(again.headers.get('request-id'), 'req-1');
  // A method the path does not serve: Allow names the ones it does.
  const headers = { 'api-version': ACP_VERSION, 'request-id': 'req-2' };
  const put = await acp.raw.call('PUT', `/checkout_sessions/${session.id}`, {}, headers);
  assert.deepEqual([put.status, put.headers.get('allow'), put.headers.get('request-id')], [405, 'GET, POST', 'req-2']);
  const discovery = await restClient(h.url).get('/.well-known/acp.json', { 'request-id': 'req-3' });
  assert.deepEqual([discovery.status, discovery.headers.get('request-id')], [200, 'req-3']);
  const refused = await acp.get('/checkout_sessions/cs_missing0000000', { 'request-id': 'req-4' });
  assert.deepEqual([refused.status, refused.headers.get('request-id')], [404, 'req-4']);
});
