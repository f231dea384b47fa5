/** The ACP tools as A2A skills: the same checkout over A2A, with the skill input in the MCP binding's shape. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { a2aClient, runSkill } from '../support/a2a.ts';
import { harnessPerFile } from '../support/harness-per-file.ts';
import { assertInvariant } from '../support/invariant.ts';
import { ACP_VERSION, acpValid, completeBody, createBody, delegateBody, shopWithTier } from '../support/acp.ts';

const h = harnessPerFile();

test('create → delegate_payment → complete as A2A skills; refusals are tasks carrying the code', async () => {
  const s = await shopWithTier(h, { capacity: 3 });
  const client = await a2aClient(h, s.apiKey);
  const meta = { api_version: ACP_VERSION };
  const created = await runSkill(
    client,
    'create_checkout_session',
    { meta, payload: createBody(s.tierId) },
    'a2a-create',
  );
  assert.ok(created.ok, JSON.stringify(created));
  acpValid('CheckoutSession', created.output);
  const again = await runSkill(
    client,
    'create_checkout_session',
    { meta, payload: createBody(s.tierId) },
    'a2a-create',
  );
  assert.ok(
    again.ok && again.replayed && again.output.id === created.output.id,
    'the data part’s idempotencyKey replays',
  );
  const id = created.output.id;
  const token = await runSkill(client, 'delegate_payment', {
    meta,
    payload: delegateBody({ checkout_session_id: id, merchant_id: s.shopId }),
  });
  assert.ok(token.ok);
  const done = await runSkill(client, 'complete_checkout_session', {
    meta,
    id,
    payload: completeBody(token.output.id),
  });
  assert.ok(done.ok, JSON.stringify(done));
  acpValid('CheckoutSessionWithOrder', done.output);
  assert.equal(done.output.status, 'completed');
  const cancel = await runSkill(client, 'cancel_checkout_session', { meta, id });
  assert.ok(!cancel.ok);
  assert.deepEqual([cancel.state, cancel.code], ['TASK_STATE_REJECTED', 'checkout_session_not_cancelable']);
  const version = await runSkill(client, 'get_checkout_session', { meta: { api_version: '1999-01-01' }, id });
  assert.ok(!version.ok);
  assert.equal(version.code, 'unsupported_api_version');
  assert.deepEqual(version.error.details.supported_versions, ['2026-04-17']);
  assert.deepEqual([(await assertInvariant(h.db, s.poolId)).sold], [1]);
});
