/**
 * purchase_initiate over REST: purchases under a signed mandate (sync, async, quote) and every refusal leaving nothing
 * charged or held.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { makeKey } from '../support/independent-signer.ts';
import { assertInvariant, poolCounts } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { count, must, reserveOne, shopWithTier } from '../support/spine.ts';
import {
  assertNothingHappened,
  forReservation,
  initiate,
  signedMandate,
  spentRows,
  startVic,
  type Vic,
} from '../support/vic.ts';

let v: Vic;
before(async () => {
  v = await startVic();
});
after(async () => {
  await v?.close();
});

/** A shop (EUR, 50.00 a ticket) with a held reservation of `quantity` places and the pool's counts now. */
async function held(quantity = 2) {
  const s = await shopWithTier(v.h, { capacity: 5, priceMinor: 5000 });
  const { reservation } = await reserveOne(s.api, s.tierId, quantity);
  return { s, reservation, before: await poolCounts(v.h.db, s.poolId) };
}

test('a signed mandate pays for a held reservation: 200 with tickets, charged on its credential, jti spent once', async () => {
  const { s, reservation } = await held(2);
  const m = signedMandate(v, s.shopId);
  const res = await initiate(s.api, forReservation(reservation.id, m));
  const out = must(res, 200);
  assert.equal(out.reservation.state, 'completed');
  assert.equal(out.order.tickets.length, 2);
  assert.equal(out.payment.state, 'succeeded');
  assert.equal(out.payment.amountMinor, 10_000);
  assert.equal(out.payment.paymentMethod, 'sbx-token-visa-4242');
  assert.equal(out.payment.scheme, 'visa');
  assert.deepEqual(
    { id: out.mandate.mandateId, jti: out.mandate.jti, network: out.mandate.network, spent: out.mandate.spentPeriod },
    { id: m.artefact.mandateId, jti: m.artefact.jti, network: 'testnet', spent: 'once' },
  );
  const [row] = await v.h.db.execute<{ reference: string; merchant_id: string }>(
    'select reference, merchant_id from mandate_jtis where jti = ?',
    [m.artefact.jti],
  );
  assert.deepEqual(row, { reference: out.payment.id, merchant_id: s.shopId });
  assert.equal(await count(v.h.db, 'from sandbox_charges where payment_reference = ?', [out.payment.id]), 1);
  const c = await assertInvariant(v.h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [3, 0, 2]);

  // Presenting it again for the same, completed purchase returns that purchase and spends nothing.
  const again = must(await initiate(s.api, forReservation(reservation.id, m)), 200);
  assert.equal(again.order.id, out.order.id);
  assert.equal(again.mandate.spentPeriod, null);
  assert.equal(await count(v.h.db, 'from payments where reservation_id = ?', [reservation.id]), 1);
});

test('an asynchronous network credential answers 202, then the sandbox settlement completes the order', async () => {
  const { s, reservation } = await held(1);
  const m = signedMandate(v, s.shopId, { credentialRef: 'sbx-token-async-7' });
  const pending = must(await initiate(s.api, forReservation(reservation.id, m)), 202);
  assert.equal(pending.reservation.state, 'confirming');
  assert.equal(pending.payment.state, 'pending');
  assert.match(pending.next, /Do not submit the payment again/);
  assert.equal(pending.pollUrl, `${v.h.url}/v1/ticketing/reservations/${reservation.id}`);
  assert.equal(await spentRows(v.h, m), 1);
  await assertInvariant(v.h.db, s.poolId);
  v.h.clock.advance(3000);
  assert.deepEqual(await v.h.app.services.payments.settleDue(), { settled: 1, attempted: 1, delivered: 1 });
  const done = must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.equal(done.reservation.state, 'completed');
  assert.equal(done.order.tickets.length, 1);
  assert.equal(await spentRows(v.h, m), 1);
  const c = await assertInvariant(v.h.db, s.poolId);
  assert.deepEqual([c.held, c.sold], [0, 1]);
});

test('with a quote it reserves and pays in one step; a refused mandate leaves no hold and the quote unused', async () => {
  const s = await shopWithTier(v.h, { capacity: 5, priceMinor: 5000 });
  const q = must(await s.api.post('/v1/ticketing/quotes', { tierId: s.tierId, quantity: 3 }), 201);
  const before = await poolCounts(v.h.db, s.poolId);
  const small = signedMandate(v, s.shopId, { amountLimit: { amountMinor: 14_999, currency: 'EUR' } });
  const refused = await initiate(s.api, {
    quoteId: q.quoteId,
    mandate: { payload: small.payload, signature: small.signature },
  });
  assert.equal(refused.status, 403, JSON.stringify(refused.body));
  assert.equal(refused.body.code, 'mandate_amount_exceeded');
  assert.deepEqual(await assertInvariant(v.h.db, s.poolId), before, 'nothing held');
  assert.equal(await count(v.h.db, 'from reservations where quote_id = ?', [q.quoteId]), 0);

  const m = signedMandate(v, s.shopId, { amountLimit: { amountMinor: 15_000, currency: 'EUR' } });
  const out = must(
    await initiate(s.api, { quoteId: q.quoteId, mandate: { payload: m.payload, signature: m.signature } }),
    200,
  );
  assert.equal(out.reservation.quoteId, q.quoteId);
  assert.equal(out.order.tickets.length, 3);
  const c = await assertInvariant(v.h.db, s.poolId);
  assert.deepEqual([c.available, c.held, c.sold], [2, 0, 3]);
});

test('refusals: amount, currency, merchant, expiry, replayed jti, bad signature, missing mandate — nothing charged or held', async () => {
  const { s, reservation, before } = await held(2);
  const other = await shopWithTier(v.h);
  const now = v.h.clock.now().getTime();
  const cases: Array<[string, ReturnType<typeof signedMandate> | undefined, number, string]> = [
    [
      'over the limit',
      signedMandate(v, s.shopId, { amountLimit: { amountMinor: 9_999, currency: 'EUR' } }),
      403,
      'mandate_amount_exceeded',
    ],
    [
      'another currency',
      signedMandate(v, s.shopId, { amountLimit: { amountMinor: 50_000, currency: 'USD' } }),
      403,
      'mandate_currency_mismatch',
    ],
    [
      'another merchant',
      signedMandate(v, s.shopId, { merchantScope: { merchantIds: [other.shopId] } }),
      403,
      'mandate_merchant_mismatch',
    ],
    [
      'expired',
      signedMandate(v, s.shopId, {
        issuedAt: new Date(now - 7_200_000).toISOString(),
        expiresAt: new Date(now - 1000).toISOString(),
      }),
      422,
      'mandate_expired',
    ],
    [
      'signed by an unknown key',
      signedMandate(v, s.shopId, {}, makeKey('EdDSA', v.key.kid)),
      422,
      'mandate_signature_invalid',
    ],
  ];
  for (const [what, m, status, code] of cases) {
    const res = await initiate(s.api, forReservation(reservation.id, m!));
    assert.equal(res.status, status, `${what}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, code, what);
    await assertNothingHappened(v, s.api, { ...reservation, poolId: s.poolId }, before, m);
  }
  const good = signedMandate(v, s.shopId);
  const tampered = { payload: good.payload.replace('25000', '95000'), signature: good.signature };
  const bad = await initiate(s.api, { reservationId: reservation.id, mandate: tampered });
  assert.deepEqual([bad.status, bad.body.code], [422, 'mandate_signature_invalid']);
  for (const body of [
    { reservationId: reservation.id },
    { reservationId: reservation.id, mandate: { payload: good.payload } },
  ]) {
    const missing = await initiate(s.api, body);
    assert.deepEqual([missing.status, missing.body.code], [403, 'mandate_required']);
  }
  await assertNothingHappened(v, s.api, { ...reservation, poolId: s.poolId }, before, good);

  // Replay: spent on one purchase, the same jti is refused for another, which stays exactly as it was.
  const second = await reserveOne(s.api, s.tierId, 1);
  must(await initiate(s.api, forReservation(second.reservation.id, good)), 200);
  const afterFirst = await poolCounts(v.h.db, s.poolId);
  const replay = await initiate(s.api, forReservation(reservation.id, good));
  assert.deepEqual([replay.status, replay.body.code], [409, 'mandate_jti_used']);
  await assertNothingHappened(v, s.api, { ...reservation, poolId: s.poolId }, afterFirst);
  assert.equal(await spentRows(v.h, good), 1);
});

test('a declined credential answers 402, holds the reservation again and gives the jti back', async () => {
  const { s, reservation } = await held(1);
  const m = signedMandate(v, s.shopId, { credentialRef: 'sbx-token-declined-1' });
  const res = await initiate(s.api, forReservation(reservation.id, m));
  assert.deepEqual([res.status, res.body.code], [402, 'payment_declined']);
  const now = must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.equal(now.reservation.state, 'held');
  assert.equal(now.reservation.expiresAt, reservation.expiresAt);
  assert.equal(now.payment.state, 'failed');
  assert.equal(await spentRows(v.h, m), 0, 'the declined payment did not spend the mandate');
  const verified = await s.api.post('/v1/mandates/verify', {
    payload: m.payload,
    signature: m.signature,
    merchantId: s.shopId,
  });
  assert.equal(verified.status, 200, 'the mandate is still usable');
  await assertInvariant(v.h.db, s.poolId);

  const later = signedMandate(v, s.shopId, { credentialRef: 'sbx-token-async-failure-1' });
  must(await initiate(s.api, forReservation(reservation.id, later)), 202);
  assert.equal(await spentRows(v.h, later), 1);
  v.h.clock.advance(3000);
  await v.h.app.services.payments.settleDue();
  const released = must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.deepEqual([released.reservation.state, released.reservation.releaseReason], ['released', 'payment_failed']);
  assert.equal(await spentRows(v.h, later), 0, 'an asynchronous decline gives the jti back too');
  await assertInvariant(v.h.db, s.poolId);
});

test('a credential the provider cannot charge is unknown_payment_method, before anything is spent', async () => {
  const { s, reservation, before } = await held(1);
  const m = signedMandate(v, s.shopId, { credentialRef: 'ntk_4f6b2c' });
  const res = await initiate(s.api, forReservation(reservation.id, m));
  assert.deepEqual([res.status, res.body.code], [422, 'unknown_payment_method']);
  await assertNothingHappened(v, s.api, { ...reservation, poolId: s.poolId }, before, m);
});

test('a daily mandate pays once per UTC day', async () => {
  const s = await shopWithTier(v.h, { capacity: 5, priceMinor: 5000 });
  const now = v.h.clock.now().getTime();
  const m = signedMandate(v, s.shopId, {
    recurrence: 'daily',
    expiresAt: new Date(now + 5 * 86_400_000).toISOString(),
  });
  const first = must(await initiate(s.api, forReservation((await reserveOne(s.api, s.tierId)).reservation.id, m)), 200);
  assert.equal(first.mandate.spentPeriod, v.h.clock.now().toISOString().slice(0, 10));
  const { reservation } = await reserveOne(s.api, s.tierId);
  const refused = await initiate(s.api, forReservation(reservation.id, m));
  assert.deepEqual(
    [refused.status, refused.body.code, refused.body.details.period],
    [409, 'mandate_jti_used', first.mandate.spentPeriod],
  );
  v.h.clock.advance(86_400_000);
  const next = must(await initiate(s.api, forReservation((await reserveOne(s.api, s.tierId)).reservation.id, m)), 200);
  assert.notEqual(next.mandate.spentPeriod, first.mandate.spentPeriod);
  assert.equal(await spentRows(v.h, m), 2);
});

test('Idempotency-Key is required and replays; only the caller’s own reservation; API keys need merchant:write', async () => {
  const { s, reservation } = await held(1);
  const m = signedMandate(v, s.shopId);
  const noKey = await initiate(s.api, forReservation(reservation.id, m), {});
  assert.deepEqual([noKey.status, noKey.body.code], [400, 'missing_idempotency_key']);
  const stranger = await v.h.merchant();
  const theirs = await initiate(restClient(v.h.url, stranger.apiKey), forReservation(reservation.id, m));
  assert.deepEqual([theirs.status, theirs.body.code], [404, 'not_found']);
  const readOnly = await v.h.merchant(['merchant:read']);
  const scoped = await initiate(restClient(v.h.url, readOnly.apiKey), forReservation(reservation.id, m));
  assert.deepEqual([scoped.status, scoped.body.code], [403, 'insufficient_scope']);
  const headers = { 'idempotency-key': randomUUID() };
  const first = must(await initiate(s.api, forReservation(reservation.id, m), headers), 200);
  const replay = await initiate(s.api, forReservation(reservation.id, m), headers);
  assert.equal(replay.status, 200);
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  assert.deepEqual(replay.body, first);
  assert.equal(await count(v.h.db, 'from payments where reservation_id = ?', [reservation.id]), 1);
  const conflict = await initiate(s.api, { reservationId: reservation.id }, headers);
  assert.deepEqual([conflict.status, conflict.body.code], [422, 'idempotency_conflict']);
});

test('after a provider outage (503, outcome unknown) the payment stays pending and the jti on it; a retry asks again about the same payment and pays', async () => {
  const { s, reservation } = await held(1);
  const m = signedMandate(v, s.shopId, { credentialRef: 'sbx-token-outage-1' });
  // The sandbox acquirer's ledger refuses this credential: the provider call throws, as when it is unreachable.
  await v.h.db.execute(
    `create function vic_outage() returns trigger language plpgsql as $$ begin raise exception 'acquirer down'; end $$`,
  );
  await v.h.db.execute(
    `create trigger vic_outage before insert on sandbox_charges for each row when (new.payment_method = 'sbx-token-outage-1') execute function vic_outage()`,
  );
  const headers = { 'idempotency-key': randomUUID() };
  const down = await initiate(s.api, forReservation(reservation.id, m), headers);
  assert.deepEqual([down.status, down.body.code], [503, 'unavailable']);
  assert.equal(down.body.details.outcome, 'unknown');
  const now = must(await s.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.deepEqual(
    [now.reservation.state, now.payment.state, now.payment.failureCode],
    ['confirming', 'pending', null],
  );
  assert.equal(await spentRows(v.h, m), 1, 'not given back: the charge may have happened');
  const other = await reserveOne(s.api, s.tierId, 1);
  const elsewhere = await initiate(s.api, forReservation(other.reservation.id, m));
  assert.deepEqual([elsewhere.status, elsewhere.body.code], [409, 'mandate_jti_used']);

  await v.h.db.execute('drop trigger vic_outage on sandbox_charges');
  const paid = must(await initiate(s.api, forReservation(reservation.id, m), headers), 200);
  assert.equal(paid.reservation.state, 'completed');
  assert.equal(paid.payment.attempt, 1, 'the same payment, asked about again: no second attempt');
  assert.equal(paid.payment.id, now.payment.id);
  const [row] = await v.h.db.execute<{ reference: string }>('select reference from mandate_jtis where jti = ?', [
    m.artefact.jti,
  ]);
  assert.equal(row?.reference, paid.payment.id, 'the jti stays spent on the payment that paid');
  await assertInvariant(v.h.db, s.poolId);
});
