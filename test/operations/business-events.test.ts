/**
 * Operators' view: one structured `business event` line per sale, refund (by cause), event cancellation, console and
 * buyer sign-in, API key created and revoked; written after the commit (a refused call writes none), with ids and
 * amounts only (never an e-mail address or a token).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.ts';
import { listOutboxMail } from '../../src/mail/outbox.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { confirmWith, key, must, reserveOne, shopWithTier } from '../support/spine.ts';

/** Every line the server logs at `info` and above, through the service's own logger. */
const logLines: string[] = [];
const logSink = new Writable({
  write(chunk: Buffer, _enc, done) {
    logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

let h: Harness;
before(async () => {
  const env = { SWEEP_INTERVAL_MS: '0', SANDBOX_DISPATCH_MS: '0', WEBHOOK_DISPATCH_MS: '0', SANDBOX_SETTLE_MS: '3000' };
  h = await startHarness({ ...env, RATE_LIMIT_PER_MINUTE: '100000' }, { log: createLogger('info', logSink) });
});
after(async () => {
  await h?.close();
});

type Line = Record<string, unknown>;
/** The business-event lines logged since `from` (an index into the captured lines). */
const eventsSince = (from: number): Line[] =>
  logLines
    .slice(from)
    .map((l) => JSON.parse(l) as Line)
    .filter((l) => l.msg === 'business event');
/** The one line of `events` matching `fields` (fails on none or several). */
function one(events: Line[], fields: Line): Line {
  const found = events.filter((e) => Object.entries(fields).every(([k, v]) => e[k] === v));
  assert.equal(found.length, 1, `one line ${JSON.stringify(fields)} in ${JSON.stringify(events)}`);
  return found[0]!;
}

test('a sale, refunds of each cause and an event cancellation each write one business event line', async () => {
  const from = logLines.length;
  const s = await shopWithTier(h, { capacity: 5 });
  const buy = async () =>
    must(await confirmWith(s.api, (await reserveOne(s.api, s.tierId)).reservation.id, 'pm_sandbox_visa'), 200);
  const bought = await buy();
  const sale = one(eventsSince(from), { event: 'sale', orderId: bought.order.id });
  assert.equal(sale.merchantId, s.shopId);
  assert.equal(sale.totalMinor, bought.order.totalMinor);
  assert.equal(sale.currency, bought.order.currency);
  assert.equal(sale.level, 30, 'at info');

  const refund = { reason: 'requested_by_customer', returnToPool: true };
  must(await s.api.post(`/v1/ticketing/orders/${bought.order.id}/refunds`, refund, key()), 200);
  const merchant = one(eventsSince(from), { event: 'refund', cause: 'merchant' });
  assert.equal(merchant.orderId, bought.order.id);
  assert.equal(merchant.outcome, 'succeeded');

  const second = await buy();
  must(await s.api.post(`/v1/integration/events/${s.eventId}/cancel`, { reason: 'Storm' }), 200);
  assert.equal((await s.api.post(`/v1/integration/events/${s.eventId}/cancel`, {})).status, 409);
  one(eventsSince(from), { event: 'event_cancelled', eventId: s.eventId, merchantId: s.shopId }); // not the refused
  await h.app.sweeper.runEventRefunds();
  one(eventsSince(from), { event: 'refund', cause: 'event_cancelled', orderId: second.order.id, outcome: 'succeeded' });

  // A payment that succeeds after its hold expired and its place was sold: refunded automatically.
  const late = await shopWithTier(h, { capacity: 1 });
  const { reservation } = await reserveOne(late.api, late.tierId, 1);
  assert.equal((await confirmWith(late.api, reservation.id, 'pm_sandbox_async_success')).status, 202);
  h.clock.advance(16 * 60_000);
  await h.app.sweeper.sweepExpiredHolds(h.clock.now(), 100);
  must(await confirmWith(late.api, (await reserveOne(late.api, late.tierId)).reservation.id, 'pm_sandbox_visa'), 200);
  await h.app.services.payments.settleDue();
  const byLate = one(eventsSince(from), { event: 'refund', cause: 'late_payment' });
  assert.equal(byLate.outcome, 'succeeded');
  assert.equal(typeof byLate.paymentId, 'string');
  assert.equal(eventsSince(from).filter((e) => e.event === 'sale').length, 3, 'the late payment is no sale');
});

test('console and buyer sign-ins and an API key created and revoked are logged by id, never by e-mail', async () => {
  const from = logLines.length;
  const s = await shopWithTier(h);
  const anon = restClient(h.url);
  const [owner] = await h.db.execute<{ email: string; id: string }>(
    'select u.email, u.id from memberships m join users u on u.id = m.user_id where m.organization_id = ?',
    [s.organizationId],
  );
  must(await anon.post('/v1/console/sign-in', { email: owner!.email }), 202);
  const [mail] = await listOutboxMail(h.db, { to: owner!.email, limit: 1 });
  const link = /\/console\/verify#token=([A-Za-z0-9_-]+)/.exec(mail!.text)![1]!;
  const session = must(await anon.post('/v1/console/sign-in/complete', { token: link }), 200);
  one(eventsSince(from), { event: 'sign_in', surface: 'console', userId: owner!.id, organizationId: s.organizationId });

  const console = restClient(h.url, session.token);
  const created = must(await console.post('/v1/console/api-keys', { name: 'ci', scopes: ['merchant:read'] }), 201);
  one(eventsSince(from), { event: 'api_key_created', keyId: created.apiKey.id, organizationId: s.organizationId });
  for (let i = 0; i < 2; i++) must(await console.post(`/v1/console/api-keys/${created.apiKey.id}/revoke`, {}), 200);
  one(eventsSince(from), { event: 'api_key_revoked', keyId: created.apiKey.id, byUserId: owner!.id }); // once

  const email = `buyer-${crypto.randomUUID().slice(0, 8)}@example.test`;
  must(await anon.post('/v1/buyer/sign-in-links', { email, merchantId: s.shopId }), 202);
  const [buyerMail] = await listOutboxMail(h.db, { to: email, limit: 1 });
  const token = /#token=([0-9a-z]+)/.exec(buyerMail!.text)![1]!;
  must(await anon.post('/v1/buyer/sessions', { token }), 201);
  const buyer = one(eventsSince(from), { event: 'sign_in', surface: 'buyer', merchantId: s.shopId });
  assert.match(String(buyer.buyerId), /^\w+/);

  const raw = JSON.stringify(eventsSince(from));
  for (const leak of [owner!.email, email, session.token, created.token, link, token])
    assert.ok(!raw.includes(leak), 'no e-mail address or token in a business event line');
});
