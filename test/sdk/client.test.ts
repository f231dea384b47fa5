/**
 * The BUILT SDK's Node client against a real server: the spine, typed refusals, idempotency keys, the attested mint.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';
import { assertInvariant } from '../support/invariant.ts';
import { restClient } from '../support/rest.ts';
import { holdRows, poll } from '../support/row-lock.ts';
import type { BootstrapResult } from '../../src/domain/merchants/merchants.ts';
import { buildSdk, type BuiltSdk } from '../support/built-sdk.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
let sdk: BuiltSdk;
let Sdk: typeof import('@tessera/sdk');
before(async () => {
  h = await startHarness();
  sdk = await buildSdk();
  Sdk = await sdk.importClient();
});
after(async () => {
  await h?.close();
  sdk?.remove();
});

/** The TesseraError a call was refused with (fails when it succeeded or threw something else). */
async function refusal(call: Promise<unknown>): Promise<InstanceType<typeof Sdk.TesseraError>> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  assert.ok('error' in outcome, `expected a refusal, got ${JSON.stringify(outcome)}`);
  assert.ok(outcome.error instanceof Sdk.TesseraError, `a TesseraError, not ${String(outcome.error)}`);
  return outcome.error;
}

/** A shop with an event, a pool of `capacity` places and one tier, made through the SDK's generic `call`. */
async function shopWithTier(m: BootstrapResult, capacity = 5) {
  const tessera = Sdk.createClient({ baseUrl: h.url, token: m.apiKey });
  const startsAt = new Date(h.clock.now().getTime() + 30 * 86_400_000).toISOString();
  const event = await tessera.call('create_event', { merchantId: m.shopId, title: 'SDK night', startsAt });
  const pool = await tessera.call('create_pool', { merchantId: m.shopId, eventId: event.id, capacity });
  const tier = await tessera.call('create_tier', {
    eventId: event.id,
    poolId: pool.id,
    name: 'Standing',
    priceMinor: 2500,
    maxQtyPerPurchase: 4,
  });
  return { tessera, event, pool, tier };
}

test('the built client runs quote → reserve → confirm against the server', async () => {
  const m = await h.merchant();
  const { tessera, pool, tier } = await shopWithTier(m);
  const quote = await tessera.quote({ tierId: tier.id, quantity: 2 });
  assert.equal(quote.totalMinor, 5000);
  const { reservation } = await tessera.reserve({ quoteId: quote.quoteId });
  assert.equal(reservation.state, 'held');
  const confirmed = await tessera.send('confirm', { id: reservation.id, paymentMethod: 'pm_sandbox_visa' });
  assert.equal(confirmed.status, 200);
  assert.equal(confirmed.data.reservation.state, 'completed');
  assert.ok(confirmed.idempotencyKey, 'a money-moving call always carries an Idempotency-Key');
  const order = await tessera.call('get_order', { id: confirmed.data.reservation.orderId! });
  assert.equal(order.quantity, 2);
  const pools = await tessera.call('list_pools', { merchantId: m.shopId });
  assert.equal(pools.pools.find((p) => p.id === pool.id)?.availableCount, 3, 'GET inputs travel in the query');
  await assertInvariant(h.db, pool.id);
});

test('a retry with the same idempotency key replays the stored outcome instead of paying twice', async () => {
  const m = await h.merchant();
  const { tessera, pool, tier } = await shopWithTier(m);
  const quote = await tessera.quote({ tierId: tier.id, quantity: 1 });
  const first = await tessera.send('reserve', { quoteId: quote.quoteId });
  assert.equal(first.replayed, false);
  const again = await tessera.send('reserve', { quoteId: quote.quoteId }, { idempotencyKey: first.idempotencyKey! });
  assert.equal(again.replayed, true);
  assert.deepEqual(again.data, first.data);
  const paid = await tessera.send('confirm', { id: first.data.reservation.id, paymentMethod: 'pm_sandbox_visa' });
  const repaid = await tessera.send(
    'confirm',
    { id: first.data.reservation.id, paymentMethod: 'pm_sandbox_visa' },
    { idempotencyKey: paid.idempotencyKey! },
  );
  assert.equal(repaid.replayed, true);
  assert.equal(repaid.data.reservation.orderId, paid.data.reservation.orderId);
  const [charges] = await h.db.execute<{ n: string }>('select count(*) as n from payments where reservation_id = ?', [
    first.data.reservation.id,
  ]);
  assert.equal(Number(charges!.n), 1, 'one payment');
  assert.deepEqual(await assertInvariant(h.db, pool.id), { capacity: 5, available: 4, held: 0, sold: 1 });
});

test('a refused call throws a TesseraError with the status, the stable code and the message', async () => {
  const m = await h.merchant();
  const { tessera, tier } = await shopWithTier(m);
  const over = await refusal(tessera.quote({ tierId: tier.id, quantity: 5 }));
  assert.deepEqual([over.status, over.code], [422, 'quantity_over_limit']);
  assert.ok(Sdk.isTesseraError(over, 'quantity_over_limit'));
  assert.match(over.message, /At most 4 per purchase/);

  const declined = await (async () => {
    const q = await tessera.quote({ tierId: tier.id, quantity: 1 });
    const { reservation } = await tessera.reserve({ quoteId: q.quoteId });
    return refusal(tessera.confirm({ id: reservation.id, paymentMethod: 'pm_sandbox_declined' }));
  })();
  assert.equal(declined.code, 'payment_declined');
  assert.ok(declined.idempotencyKey, 'the key of the refused call, for a retry');

  const unknown = await refusal(tessera.call('get_reservation', { id: 'rsv_missing' }));
  assert.deepEqual([unknown.status, unknown.code], [404, 'not_found']);
  const anonymous = Sdk.createClient({ baseUrl: h.url });
  const refused = await refusal(anonymous.call('list_pools', { merchantId: m.shopId }));
  assert.deepEqual([refused.status, refused.code], [401, 'unauthenticated']);
  // The generated types refuse unknown fields at compile time; the server refuses them at run time all the same.
  const extra = await refusal(tessera.call('quote', { tierId: tier.id, quantity: 1, coupon: 'FREE' } as never));
  assert.deepEqual([extra.status, extra.code], [400, 'unknown_field']);
});

test(`${verifies('SPEC-7-rate-limited')}rate limiting surfaces as 429 rate_limited with retryAfter`, async () => {
  const limited = await startHarness({ RATE_LIMIT_PER_MINUTE: '3' });
  try {
    const m = await limited.merchant();
    const tessera = Sdk.createClient({ baseUrl: limited.url, token: m.apiKey });
    let error: InstanceType<typeof Sdk.TesseraError> | undefined;
    for (let i = 0; i < 10 && !error; i++) {
      error = await tessera.call('list_pools', { merchantId: m.shopId }).then(
        () => undefined,
        (e: unknown) => e as InstanceType<typeof Sdk.TesseraError>,
      );
    }
    assert.ok(error, 'the limit was reached');
    assert.deepEqual([error.status, error.code], [429, 'rate_limited']);
    assert.ok(typeof error.retryAfter === 'number' && error.retryAfter > 0, `retryAfter ${error.retryAfter}`);
  } finally {
    await limited.close();
  }
});

/** The global fetch, counting the requests and handing each answer to `onAnswer` before the client reads it. */
function countingFetch(onAnswer: (res: Response) => Promise<void> | void = () => undefined) {
  const seen: { method: string; key: string | null; status: number }[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    seen.push({
      method: init?.method ?? 'GET',
      key: new Headers(init?.headers).get('idempotency-key'),
      status: res.status,
    });
    await onAnswer(res);
    return res;
  };
  return { fetchImpl, seen };
}

test('with retries, a rate-limited call is sent again after its retryAfter, then thrown; a longer wait or an abort stops it', async () => {
  assert.equal(
    Sdk.jitteredDelay(1, 2, () => 0),
    2000,
  );
  assert.equal(
    Sdk.jitteredDelay(1, 2, () => 0.5),
    3000,
    'retryAfter plus up to as long again',
  );
  for (const retry of [
    { retries: -1 },
    { retries: 1.5 },
    { retries: Number.NaN },
    { retries: 1, maxDelayMs: Number.NaN },
  ]) {
    assert.throws(() => Sdk.createClient({ baseUrl: h.url, retry }), TypeError, JSON.stringify(retry));
  }
  const limited = await startHarness({ RATE_LIMIT_PER_MINUTE: '3' });
  try {
    const m = await limited.merchant();
    const spend = Sdk.createClient({ baseUrl: limited.url, token: m.apiKey });
    for (let i = 0; i < 3; i++) await spend.call('list_pools', { merchantId: m.shopId });
    // Past the budget: the first attempt and two retries, each asked with the server's retryAfter, then the refusal.
    const asked: [number, number][] = [];
    const counted = countingFetch();
    const retrying = Sdk.createClient({
      baseUrl: limited.url,
      token: m.apiKey,
      fetch: counted.fetchImpl,
      retry: { retries: 2, delay: (attempt, retryAfter) => (asked.push([attempt, retryAfter]), 0) },
    });
    const refused = await refusal(retrying.call('list_pools', { merchantId: m.shopId }));
    assert.deepEqual([refused.status, refused.code], [429, 'rate_limited']);
    assert.deepEqual(
      counted.seen.map((r) => r.status),
      [429, 429, 429],
    );
    assert.deepEqual(
      asked.map(([attempt]) => attempt),
      [1, 2],
    );
    assert.ok(
      asked.every(([, after]) => after === refused.retryAfter && after >= 1),
      JSON.stringify(asked),
    );
    // A refusal asking for longer than maxDelayMs is thrown at once (the default delay is at least retryAfter).
    const impatient = countingFetch();
    const short = Sdk.createClient({
      baseUrl: limited.url,
      token: m.apiKey,
      fetch: impatient.fetchImpl,
      retry: { retries: 5, maxDelayMs: 500 },
    });
    assert.equal((await refusal(short.call('list_pools', { merchantId: m.shopId }))).code, 'rate_limited');
    assert.equal(impatient.seen.length, 1);
    // An abort while waiting to retry rejects the call with the abort's reason, without another request.
    const controller = new AbortController();
    const aborting = countingFetch(() => controller.abort(new Error('gave up')));
    const patient = Sdk.createClient({
      baseUrl: limited.url,
      token: m.apiKey,
      fetch: aborting.fetchImpl,
      retry: { retries: 3, delay: () => 60_000, maxDelayMs: 120_000 },
    });
    await assert.rejects(
      patient.call('list_pools', { merchantId: m.shopId }, { signal: controller.signal }),
      /gave up/,
    );
    assert.equal(aborting.seen.length, 1);
  } finally {
    await limited.close();
  }
});

test('with retries, a call whose key is still in flight is sent again with the same key and gets the replayed outcome', async () => {
  const m = await h.merchant();
  const { pool } = await shopWithTier(m);
  // Hold the pool's row, so the first update_pool claims its key and then waits on the row.
  const holder = await holdRows(h.dbUrl, 'select id from pools where id = $1 for update', [pool.id]);
  try {
    const first = restClient(h.url, m.apiKey).patch(
      `/v1/integration/pools/${pool.id}`,
      { capacity: 9 },
      { 'idempotency-key': 'sdk-retry-1' },
    );
    const inFlight = await poll(
      async () =>
        (await holder.client.query(`select 1 from idempotency_keys where key = 'sdk-retry-1' and state = 'in_flight'`))
          .rowCount,
    );
    assert.ok(inFlight, 'the first call holds its key in flight');
    // When the client sees 409 idempotency_in_flight, let the first call finish before the client reads that answer.
    const counted = countingFetch(async (res) => {
      if (res.status !== 409) return;
      await holder.release();
      assert.equal((await first).status, 200);
    });
    const tessera = Sdk.createClient({
      baseUrl: h.url,
      token: m.apiKey,
      fetch: counted.fetchImpl,
      retry: { retries: 3, delay: () => 0 },
    });
    const again = await tessera.send('update_pool', { id: pool.id, capacity: 9 }, { idempotencyKey: 'sdk-retry-1' });
    assert.deepEqual([again.status, again.replayed, again.data.capacity], [200, true, 9]);
    assert.deepEqual(
      counted.seen.map((r) => [r.status, r.key]),
      [
        [409, 'sdk-retry-1'],
        [200, 'sdk-retry-1'],
      ],
    );
  } finally {
    await holder.end();
  }
  await assertInvariant(h.db, pool.id);
});

test(`${verifies('SPEC-5.6-attested-enabled-only')}the attested mint: an attest client mints where staff enabled the organization, else 403 merchant_consent_not_enabled`, async () => {
  const m = await h.merchant();
  const staff = restClient(h.url, await h.staffToken());
  const owner = restClient(
    h.url,
    await h.app.authenticator.sign({ typ: 'console', sub: m.ownerId, org: m.organizationId, role: 'owner' }, 3600),
  );
  const email = `buyer-${Date.now()}@example.test`;

  // A plain key's client may only mint plain sessions (its types forbid merchantAttested: true).
  const plain = Sdk.createClient({ baseUrl: h.url, token: m.apiKey });
  const session = await plain.mintBuyerSession({ merchantId: m.shopId, email, lang: 'de' });
  assert.deepEqual([session.mode, session.attested], ['bounded', false]);

  const enable = (enabled: boolean) =>
    staff.post(`/v1/staff/organizations/${m.organizationId}/attestation`, {
      enabled,
      perBuyerCeilingMinor: 20_000,
      windowHours: 24,
    });
  assert.equal((await enable(true)).status, 200);
  const created = await owner.post('/v1/console/api-keys', { name: 'attest', scopes: ['mandates:attest'] });
  assert.equal(created.status, 201);
  const attest = Sdk.createClient({ baseUrl: h.url, token: Sdk.attestKey(created.body.token) });
  const attested = await attest.mintBuyerSession({ merchantId: m.shopId, email, merchantAttested: true });
  assert.deepEqual([attested.mode, attested.attested], ['bounded', true]);

  assert.equal((await enable(false)).status, 200);
  const refused = await refusal(attest.mintBuyerSession({ merchantId: m.shopId, email, merchantAttested: true }));
  assert.deepEqual([refused.status, refused.code], [403, 'merchant_consent_not_enabled']);
  // A plain key claiming to be an attest key is refused the same way: the server checks the scope, the types only
  // guide.
  const pretending = Sdk.createClient({ baseUrl: h.url, token: Sdk.attestKey(m.apiKey) });
  const alsoRefused = await refusal(
    pretending.mintBuyerSession({ merchantId: m.shopId, email, merchantAttested: true }),
  );
  assert.deepEqual([alsoRefused.status, alsoRefused.code], [403, 'merchant_consent_not_enabled']);
});

test('a client with a cookie session sends X-Tessera-Session and same-origin credentials, never a bearer', async () => {
  const sent: { session: string | null; authorization: string | null; credentials: string | undefined }[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    sent.push({
      session: headers.get('x-tessera-session'),
      authorization: headers.get('authorization'),
      credentials: init?.credentials,
    });
    return fetch(input, init);
  };
  const page = Sdk.createClient({ baseUrl: h.url, session: 'console', fetch: fetchImpl });
  // Node's fetch keeps no cookie: the session is anonymous here, and refused as such.
  const error = await refusal(page.call('list_shops'));
  assert.deepEqual([error.status, error.code], [401, 'unauthenticated']);
  assert.deepEqual(sent, [{ session: 'console', authorization: null, credentials: 'same-origin' }]);
  assert.throws(
    () => Sdk.createClient({ baseUrl: h.url, session: 'buyer', token: 'tsk_x' }),
    TypeError,
    'a cookie session or a token, not both',
  );
});
