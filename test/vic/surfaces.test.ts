/**
 * purchase_initiate over every surface (REST, MCP in memory and over HTTP, A2A); on A2A a missing or invalid mandate is
 * auth-required.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { a2aClient, runSkill } from '../support/a2a.ts';
import { assertInvariant, poolCounts } from '../support/invariant.ts';
import { SURFACES } from '../support/surfaces.ts';
import { count, reserveOne, shopWithTier } from '../support/spine.ts';
import { makeKey } from '../support/independent-signer.ts';
import { signedMandate, spentRows, startVic, type Vic } from '../support/vic.ts';

let v: Vic;
before(async () => {
  v = await startVic();
});
after(async () => {
  await v?.close();
});

for (const surface of SURFACES) {
  test(`over ${surface.name}: a signed mandate completes the purchase; a bad one is refused with nothing charged`, async () => {
    const s = await shopWithTier(v.h, { capacity: 4, priceMinor: 5000 });
    const conn = await surface.connect(v.h, s.apiKey);
    try {
      const { reservation } = await reserveOne(s.api, s.tierId, 2);
      const before = await poolCounts(v.h.db, s.poolId);
      const m = signedMandate(v, s.shopId);
      const forged = signedMandate(v, s.shopId, {}, makeKey('EdDSA', v.key.kid));
      const bad = await conn.call(
        'purchase_initiate',
        { reservationId: reservation.id, mandate: { payload: forged.payload, signature: forged.signature } },
        { idempotencyKey: randomUUID() },
      );
      assert.equal(!bad.ok && bad.code, 'mandate_signature_invalid', JSON.stringify(bad));
      assert.equal(await count(v.h.db, 'from payments where reservation_id = ?', [reservation.id]), 0);
      assert.deepEqual(await assertInvariant(v.h.db, s.poolId), before);
      const args = { reservationId: reservation.id, mandate: { payload: m.payload, signature: m.signature } };
      if (surface.name === 'rest') {
        const noKey = await conn.call('purchase_initiate', args);
        assert.equal(!noKey.ok && noKey.code, 'missing_idempotency_key');
        assert.match(!noKey.ok ? noKey.message : '', /Idempotency-Key header/);
      }

      // Over MCP and A2A the key is optional (natural idempotency); REST requires its header.
      const paid = await conn.call(
        'purchase_initiate',
        args,
        surface.name === 'rest' ? { idempotencyKey: randomUUID() } : {},
      );
      assert.ok(paid.ok, JSON.stringify(paid));
      assert.equal(paid.output.reservation.state, 'completed');
      assert.equal(paid.output.order.tickets.length, 2);
      assert.equal(paid.output.mandate.spentPeriod, 'once');
      assert.equal(await spentRows(v.h, m), 1);
      const c = await assertInvariant(v.h.db, s.poolId);
      assert.deepEqual([c.held, c.sold], [0, 2]);
      // The same purchase again (a lost response, retried without a key) returns that purchase; nothing is charged
      // twice.
      const retried = await conn.call(
        'purchase_initiate',
        args,
        surface.name === 'rest' ? { idempotencyKey: randomUUID() } : {},
      );
      assert.ok(retried.ok, JSON.stringify(retried));
      assert.deepEqual([retried.output.order.id, retried.output.mandate.spentPeriod], [paid.output.order.id, null]);
      assert.equal(await count(v.h.db, 'from payments where reservation_id = ?', [reservation.id]), 1);

      const { reservation: next } = await reserveOne(s.api, s.tierId, 1);
      const replay = await conn.call(
        'purchase_initiate',
        { reservationId: next.id, mandate: { payload: m.payload, signature: m.signature } },
        { idempotencyKey: randomUUID() },
      );
      assert.equal(!replay.ok && replay.code, 'mandate_jti_used');
    } finally {
      await conn.done();
    }
  });
}

test('over A2A a missing or invalid mandate ends in auth-required; other refusals keep their state', async () => {
  const s = await shopWithTier(v.h, { capacity: 4, priceMinor: 5000 });
  const client = await a2aClient(v.h, s.apiKey);
  const { reservation } = await reserveOne(s.api, s.tierId, 1);
  const before = await poolCounts(v.h.db, s.poolId);
  const run = (input: Record<string, unknown>) => runSkill(client, 'purchase_initiate', input, randomUUID());
  const good = signedMandate(v, s.shopId);
  const now = v.h.clock.now().getTime();
  const expired = signedMandate(v, s.shopId, {
    issuedAt: new Date(now - 7_200_000).toISOString(),
    expiresAt: new Date(now - 1).toISOString(),
  });
  const small = signedMandate(v, s.shopId, { amountLimit: { amountMinor: 100, currency: 'EUR' } });
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ reservationId: reservation.id }, 'mandate_required'],
    [
      { reservationId: reservation.id, mandate: { payload: good.payload, signature: 'not-a-jws' } },
      'mandate_jws_malformed',
    ],
    [
      {
        reservationId: reservation.id,
        mandate: { payload: good.payload.replace('25000', '25001'), signature: good.signature },
      },
      'mandate_signature_invalid',
    ],
    [
      { reservationId: reservation.id, mandate: { payload: expired.payload, signature: expired.signature } },
      'mandate_expired',
    ],
    [
      { reservationId: reservation.id, mandate: { payload: small.payload, signature: small.signature } },
      'mandate_amount_exceeded',
    ],
  ];
  for (const [input, code] of cases) {
    const r = await run(input);
    assert.deepEqual([r.state, !r.ok && r.code], ['TASK_STATE_AUTH_REQUIRED', code]);
  }
  const missing = await run({
    reservationId: 'rsv_nope',
    mandate: { payload: good.payload, signature: good.signature },
  });
  assert.deepEqual([missing.state, !missing.ok && missing.code], ['TASK_STATE_REJECTED', 'not_found']);
  const both = await run({ mandate: { payload: good.payload, signature: good.signature } });
  assert.deepEqual([both.state, !both.ok && both.code], ['TASK_STATE_INPUT_REQUIRED', 'invalid_input']);
  assert.equal(await count(v.h.db, 'from payments where reservation_id = ?', [reservation.id]), 0);
  assert.deepEqual(await assertInvariant(v.h.db, s.poolId), before);

  const paid = await run({
    reservationId: reservation.id,
    mandate: { payload: good.payload, signature: good.signature },
  });
  assert.deepEqual([paid.state, paid.ok && paid.output.reservation.state], ['TASK_STATE_COMPLETED', 'completed']);
});

test('over A2A an asynchronous credential completes the task with the pending purchase; settlement completes it', async () => {
  const s = await shopWithTier(v.h, { capacity: 2, priceMinor: 5000 });
  const client = await a2aClient(v.h, s.apiKey);
  const q = (await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 1 })).body;
  const m = signedMandate(v, s.shopId, { credentialRef: 'sbx-token-async-a2a' });
  const r = await runSkill(
    client,
    'purchase_initiate',
    { quoteId: q.quoteId, mandate: { payload: m.payload, signature: m.signature } },
    randomUUID(),
  );
  assert.ok(r.ok, JSON.stringify(r));
  assert.deepEqual([r.output.reservation.state, r.output.payment.state], ['confirming', 'pending']);
  assert.ok(r.output.pollUrl);
  v.h.clock.advance(3000);
  await v.h.app.services.payments.settleDue();
  const done = (await s.api.get(`/v1/ticketing/reservations/${r.output.reservation.id}`)).body;
  assert.equal(done.reservation.state, 'completed');
  await assertInvariant(v.h.db, s.poolId);
});
