import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { signSandboxPayload } from '../../src/payments/sandbox-signature.ts';
import type { Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { confirmWith, count, must, reserveOne, shopWithTier, startSpineHarness, type Shop } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness();
});
after(async () => {
  await h?.close();
});

const EVENTS = '/v1/payments/providers/sandbox/events';

function eventFor(
  payment: { id: string; providerReference: string; amountMinor: number; currency: string },
  id: string,
  type = 'charge.succeeded',
) {
  return JSON.stringify({
    id,
    type,
    created: Math.floor(h.clock.now().getTime() / 1000),
    data: {
      chargeId: payment.providerReference,
      paymentReference: payment.id,
      amountMinor: payment.amountMinor,
      currency: payment.currency,
      failureCode: type === 'charge.failed' ? 'payment_declined' : null,
    },
  });
}

const post = (body: string, signature?: string) =>
  restClient(h.url).post(EVENTS, body, signature === undefined ? {} : { 'sandbox-signature': signature });
const secret = () => h.app.services.payments.sandbox.webhookSecret;

async function pendingPurchase(): Promise<{ s: Shop; reservationId: string; payment: any }> {
  const s = await shopWithTier(h, { capacity: 2 });
  const { reservation } = await reserveOne(s.api, s.tierId);
  const res = await confirmWith(s.api, reservation.id, 'pm_sandbox_async_success');
  assert.equal(res.status, 202);
  return { s, reservationId: reservation.id, payment: res.body.payment };
}

test('forged, unsigned and malformed provider events are refused with 400 invalid_signature', async () => {
  const { s, reservationId, payment } = await pendingPurchase();
  const body = eventFor(payment, 'sbe_forged');
  for (const signature of [undefined, 'garbage', signSandboxPayload('not-the-secret-at-all', body, h.clock.now())]) {
    const res = await post(body, signature);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 'invalid_signature');
  }
  const tampered = await post(
    body.replace('"amountMinor":', '"amountMinor":1'),
    signSandboxPayload(secret(), body, h.clock.now()),
  );
  assert.equal(tampered.body.code, 'invalid_signature');
  assert.equal(
    must(await s.api.get(`/v1/ticketing/reservations/${reservationId}`), 200).reservation.state,
    'confirming',
  );
  await assertInvariant(h.db, s.poolId);
});

test('a stale or future-dated signature is refused with 400 stale_signature', async () => {
  const { s, reservationId, payment } = await pendingPurchase();
  const body = eventFor(payment, 'sbe_stale');
  const old = new Date(h.clock.now().getTime() - 6 * 60_000);
  const future = new Date(h.clock.now().getTime() + 6 * 60_000);
  for (const at of [old, future]) {
    const res = await post(body, signSandboxPayload(secret(), body, at));
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'stale_signature');
  }
  const fine = await post(body, signSandboxPayload(secret(), body, new Date(h.clock.now().getTime() - 4 * 60_000)));
  assert.equal(fine.status, 200, 'within the 5-minute tolerance');
  assert.equal(
    must(await s.api.get(`/v1/ticketing/reservations/${reservationId}`), 200).reservation.state,
    'completed',
  );
});

test('a duplicate event id is acknowledged and ignored; later events cannot undo a completed order', async () => {
  const { s, reservationId, payment } = await pendingPurchase();
  const body = eventFor(payment, 'sbe_dup');
  const first = await post(body, signSandboxPayload(secret(), body, h.clock.now()));
  assert.deepEqual(first.body, { received: true, outcome: 'applied' });
  const dup = await post(body, signSandboxPayload(secret(), body, h.clock.now()));
  assert.equal(dup.status, 200);
  assert.deepEqual(dup.body, { received: true, outcome: 'duplicate' });
  const contrary = eventFor(payment, 'sbe_contrary', 'charge.failed');
  must(await post(contrary, signSandboxPayload(secret(), contrary, h.clock.now())), 200);
  h.clock.advance(3000);
  await h.app.services.payments.settleDue();
  const view = must(await s.api.get(`/v1/ticketing/reservations/${reservationId}`), 200);
  assert.equal(view.reservation.state, 'completed');
  assert.equal(view.payment.state, 'succeeded');
  assert.equal(view.order.tickets.length, 1);
  const n = await count(h.db, 'from tickets where order_id = ?', [view.order.id]);
  assert.equal(n, 1);
  const c = await assertInvariant(h.db, s.poolId);
  assert.deepEqual([c.available, c.sold], [1, 1]);
});

test('an event for an unknown payment is acknowledged without effect', async () => {
  const body = eventFor(
    { id: 'pay_unknown0000', providerReference: 'sch_x', amountMinor: 1, currency: 'EUR' },
    'sbe_unknown',
  );
  const res = await post(body, signSandboxPayload(secret(), body, h.clock.now()));
  assert.deepEqual(res.body, { received: true, outcome: 'unknown_payment' });
  const bad = '{"id":"x"}';
  const invalid = await post(bad, signSandboxPayload(secret(), bad, h.clock.now()));
  assert.equal(invalid.status, 400);
  assert.equal(invalid.body.code, 'invalid_input');
});
