/**
 * Operators' view: `/metrics` exposes the business metrics (purchases, payment failures by code, refunds by outcome
 * and cause (a merchant's, a cancelled event's, a late payment's), hold expiries, reserve batch sizes, reserve admissions), and each moves when its event happens.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { closedPortUrl } from '../support/webhook-receiver.ts';
import { confirmWith, key, must, reserveOne, shopWithTier, startSpineHarness } from '../support/spine.ts';

let h: Harness;
before(async () => {
  h = await startSpineHarness({ WEBHOOK_ALLOW_LOOPBACK: 'true' }); // a loopback subscription for the lag gauges
});
after(async () => {
  await h?.close();
});

const MERCHANT_REFUNDS = 'tessera_order_refunds_total{outcome="succeeded",cause="merchant"}';

/** The scraped value of `series` (a name with its labels as Prometheus writes them), 0 when absent. */
async function scrape(series: string): Promise<number> {
  const res = await restClient(h.url).get('/metrics');
  assert.equal(res.status, 200);
  const line = (res.body as string).split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

test('/metrics lists every business metric', async () => {
  const text = (await restClient(h.url).get('/metrics')).body as string;
  for (const name of [
    'tessera_purchases_completed_total',
    'tessera_payment_failures_total',
    'tessera_order_refunds_total',
    'tessera_hold_expiries_total',
    'tessera_reserve_batch_size',
    'tessera_reserve_admissions_total',
  ])
    assert.ok(text.includes(`# TYPE ${name} `), `${name} is exposed`);
});

test('a completed purchase, a decline, a refund and an expired hold each move their metric', async () => {
  const s = await shopWithTier(h, { holdMinutes: 10 });
  const purchases = await scrape('tessera_purchases_completed_total');
  const batches = await scrape('tessera_reserve_batch_size_count');
  const bought = must(
    await confirmWith(s.api, (await reserveOne(s.api, s.tierId)).reservation.id, 'pm_sandbox_visa'),
    200,
  );
  assert.equal(await scrape('tessera_purchases_completed_total'), purchases + 1);
  assert.ok((await scrape('tessera_reserve_batch_size_count')) >= batches + 1, 'the reserve ran in a batch');

  const declines = await scrape('tessera_payment_failures_total{code="payment_declined"}');
  const declined = await confirmWith(s.api, (await reserveOne(s.api, s.tierId)).reservation.id, 'pm_sandbox_declined');
  assert.equal(declined.body.code, 'payment_declined');
  assert.equal(await scrape('tessera_payment_failures_total{code="payment_declined"}'), declines + 1);
  assert.equal(await scrape('tessera_purchases_completed_total'), purchases + 1, 'a decline is no purchase');

  const refunds = await scrape(MERCHANT_REFUNDS);
  const refund = { reason: 'requested_by_customer', returnToPool: true };
  must(await s.api.post(`/v1/ticketing/orders/${bought.order.id}/refunds`, refund, key()), 200);
  assert.equal(await scrape(MERCHANT_REFUNDS), refunds + 1);

  const expiries = await scrape('tessera_hold_expiries_total');
  h.clock.advance(11 * 60_000);
  const swept = await h.app.sweeper.sweepExpiredHolds(h.clock.now(), 100);
  assert.ok(swept.released.length >= 1, 'the declined hold expired');
  assert.equal(await scrape('tessera_hold_expiries_total'), expiries + swept.released.length);
});

test('an event cancellation’s refunds and a late payment’s refund are counted by cause', async () => {
  const cancelled = 'tessera_order_refunds_total{outcome="succeeded",cause="event_cancelled"}';
  const late = 'tessera_order_refunds_total{outcome="succeeded",cause="late_payment"}';
  const [byEvent, byLate, byMerchant] = [await scrape(cancelled), await scrape(late), await scrape(MERCHANT_REFUNDS)];

  const s = await shopWithTier(h, { capacity: 3 });
  for (let i = 0; i < 2; i++)
    must(await confirmWith(s.api, (await reserveOne(s.api, s.tierId)).reservation.id, 'pm_sandbox_visa'), 200);
  must(await s.api.post(`/v1/ticketing/events/${s.eventId}/refunds`, { reason: 'Event cancelled' }), 202);
  await h.app.sweeper.runEventRefunds();
  assert.equal(await scrape(cancelled), byEvent + 2);

  // A payment that succeeds after its hold expired and its place was sold: refunded automatically.
  const one = await shopWithTier(h, { capacity: 1 });
  const { reservation } = await reserveOne(one.api, one.tierId, 1);
  assert.equal((await confirmWith(one.api, reservation.id, 'pm_sandbox_async_success')).status, 202);
  h.clock.advance(16 * 60_000);
  await h.app.sweeper.sweepExpiredHolds(h.clock.now(), 100);
  must(await confirmWith(one.api, (await reserveOne(one.api, one.tierId)).reservation.id, 'pm_sandbox_visa'), 200);
  await h.app.services.payments.settleDue();
  const view = must(await one.api.get(`/v1/ticketing/reservations/${reservation.id}`), 200);
  assert.equal(view.order.refundReason, 'sold_out');
  assert.equal(await scrape(late), byLate + 1);
  assert.equal(await scrape(MERCHANT_REFUNDS), byMerchant, 'neither is a merchant’s refund');
});

test('the outbox and webhook lag gauges give the age of the oldest waiting event and delivery', async () => {
  const dispatch = () => h.app.services.webhooks.dispatchOnce();
  await dispatch(); // what earlier tests left in the outbox
  const s = await shopWithTier(h);
  must(
    await s.api.post('/v1/integration/webhooks', {
      merchantId: s.shopId,
      url: await closedPortUrl(),
      events: ['pool.updated'],
    }),
    201,
  );
  await dispatch();
  assert.equal(await scrape('tessera_outbox_lag_seconds'), 0);
  must(await s.api.patch(`/v1/integration/pools/${s.poolId}`, { capacity: 20 }), 200);
  h.clock.advance(90_000);
  assert.equal(await scrape('tessera_outbox_lag_seconds'), 90, 'the pool.updated event waits in the outbox');
  await dispatch(); // fanned out; its delivery to the closed port fails and stays pending
  assert.equal(await scrape('tessera_outbox_lag_seconds'), 0);
  h.clock.advance(60_000);
  assert.equal(await scrape('tessera_webhook_lag_seconds'), 60);
});
