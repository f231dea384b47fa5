import { test } from 'node:test';
import assert from 'node:assert/strict';
import { restClient } from '../support/rest.ts';
import { codeFor, merchantShop, must, newEmail, signIn } from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';
import { verifies } from '../support/requirements.ts';

const w = worldPerFile();

async function buyerAtShop() {
  const shop = await merchantShop(w.h);
  const email = newEmail();
  const session = await signIn(w, email, shop.shopId);
  return { shop, email, session, api: restClient(w.h.url, session) };
}

test(`${verifies('SPEC-5.5-emailed-code')}a card setup frames the provider form, resumes while unfinished, and saves after the code`, async () => {
  const { shop, email, session, api } = await buyerAtShop();
  const setup = must(await api.post('/v1/buyer/card-setups', {}), 201);
  assert.equal(setup.status, 'pending');
  assert.equal(setup.merchantId, shop.shopId);
  assert.equal(setup.provider, 'sandbox');
  const form = new URL(setup.formUrl);
  assert.equal(form.pathname, '/sandbox/card-form');
  assert.equal(form.searchParams.get('origin'), new URL(w.h.url).origin);
  assert.equal((await fetch(setup.formUrl)).status, 200);
  assert.equal(
    must(await api.post('/v1/buyer/card-setups', {}), 201).setupId,
    setup.setupId,
    'an unfinished setup resumes',
  );

  const done = must(
    await api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod: 'pm_sandbox_mastercard' }),
    200,
  );
  assert.deepEqual([done.status, done.scheme, done.last4, done.reused], ['succeeded', 'mastercard', '4444', false]);
  const saveWithoutCode = await api.post('/v1/buyer/instruments', { setupId: setup.setupId, spendingCapMinor: 10_000 });
  assert.equal(saveWithoutCode.status, 400);
  const proof = await codeFor(w, session, email, 'save_card');
  const saved = must(
    await api.post('/v1/buyer/instruments', { setupId: setup.setupId, spendingCapMinor: 10_000, ...proof }),
    201,
  );
  assert.equal(saved.reused, false);
  assert.deepEqual(
    [
      saved.instrument.merchantId,
      saved.instrument.provider,
      saved.instrument.last4,
      saved.instrument.spendingCapMinor,
      saved.instrument.currency,
    ],
    [shop.shopId, 'sandbox', '4444', 10_000, 'EUR'],
  );
  const list = must(await api.get('/v1/buyer/instruments'), 200).instruments;
  assert.deepEqual(
    list.map((i: { id: string }) => i.id),
    [saved.instrument.id],
  );
  assert.notEqual(
    must(await api.post('/v1/buyer/card-setups', {}), 201).setupId,
    setup.setupId,
    'a saved setup is not resumed',
  );
});

test(`${verifies('SPEC-3-card-setup-reuse')}retrying after a setup succeeded reuses it: no second preparation, no second card, no second code`, async () => {
  const { email, session, api } = await buyerAtShop();
  const setup = must(await api.post('/v1/buyer/card-setups', {}), 201);
  must(await api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod: 'pm_sandbox_visa' }), 200);
  const again = must(
    await api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod: 'pm_sandbox_not_chargeable' }),
    200,
  );
  assert.deepEqual([again.status, again.last4, again.reused], ['succeeded', '4242', true]);
  const proof = await codeFor(w, session, email, 'save_card');
  const first = must(
    await api.post('/v1/buyer/instruments', { setupId: setup.setupId, spendingCapMinor: 5000, ...proof }),
    201,
  );
  const retry = must(
    await api.post('/v1/buyer/instruments', { setupId: setup.setupId, spendingCapMinor: 5000, ...proof }),
    200,
  );
  assert.equal(retry.reused, true);
  assert.equal(retry.instrument.id, first.instrument.id);
  assert.equal(must(await api.get('/v1/buyer/instruments'), 200).instruments.length, 1);
});

test(`${verifies('SPEC-7-card-setup-codes')}setup errors: preparation unavailable is retryable; not chargeable and customer mismatch need another card`, async () => {
  const { email, session, api } = await buyerAtShop();
  const setup = must(await api.post('/v1/buyer/card-setups', {}), 201);
  const complete = (paymentMethod: string) =>
    api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod });

  const notChargeable = await complete('pm_sandbox_not_chargeable');
  assert.deepEqual([notChargeable.status, notChargeable.body.code], [422, 'card_not_chargeable']);
  const mismatch = await complete('pm_sandbox_customer_mismatch');
  assert.deepEqual([mismatch.status, mismatch.body.code], [422, 'card_customer_mismatch']);
  const proof = await codeFor(w, session, email, 'save_card');
  const early = await api.post('/v1/buyer/instruments', { setupId: setup.setupId, spendingCapMinor: 5000, ...proof });
  assert.deepEqual([early.status, early.body.code], [409, 'card_setup_not_ready']);

  const fresh = must(await api.post('/v1/buyer/card-setups', {}), 201);
  assert.equal(fresh.setupId, setup.setupId, 'the failed setup resumes for correction');
  assert.equal(fresh.failureCode, 'card_customer_mismatch');
  const other = await restClient(w.h.url, session).post(`/v1/buyer/card-setups/${setup.setupId}/complete`, {
    paymentMethod: 'pm_sandbox_setup_unavailable',
  });
  assert.deepEqual([other.status, other.body.code], [503, 'card_preparation_unavailable']);
  assert.equal(other.headers.get('retry-after'), '1');
  const retried = must(await complete('pm_sandbox_setup_unavailable'), 200);
  assert.equal(retried.status, 'succeeded');
  must(await api.post('/v1/buyer/instruments', { setupId: setup.setupId, spendingCapMinor: 5000, ...proof }), 201);
});

test('only the buyer’s own setup in the session’s shop can be completed or saved', async () => {
  const a = await buyerAtShop();
  const setup = must(await a.api.post('/v1/buyer/card-setups', {}), 201);
  const b = await buyerAtShop();
  assert.equal(
    (await b.api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod: 'pm_sandbox_visa' })).status,
    404,
  );
  const noShop = restClient(w.h.url, await signIn(w, newEmail()));
  const refused = await noShop.post('/v1/buyer/card-setups', {});
  assert.deepEqual([refused.status, refused.body.code], [422, 'session_shop_required']);
});

test(`${verifies('SPEC-5.5-emailed-code')}a card’s spending cap is raised only with a code and lowered without one`, async () => {
  const { email, session, api } = await buyerAtShop();
  const setup = must(await api.post('/v1/buyer/card-setups', {}), 201);
  must(await api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod: 'pm_sandbox_visa' }), 200);
  const saveProof = await codeFor(w, session, email, 'save_card');
  const card = must(
    await api.post('/v1/buyer/instruments', { setupId: setup.setupId, spendingCapMinor: 5000, ...saveProof }),
    201,
  ).instrument;
  const noCode = await api.post(`/v1/buyer/instruments/${card.id}/raise-cap`, { spendingCapMinor: 9000 });
  assert.equal(noCode.status, 400);
  const proof = await codeFor(w, session, email, 'raise_card_cap');
  assert.equal(
    must(await api.post(`/v1/buyer/instruments/${card.id}/raise-cap`, { spendingCapMinor: 9000, ...proof }), 200)
      .spendingCapMinor,
    9000,
  );
  const notHigher = await api.post(`/v1/buyer/instruments/${card.id}/raise-cap`, {
    spendingCapMinor: 8000,
    ...(await codeFor(w, session, email, 'raise_card_cap')),
  });
  assert.equal(notHigher.body.code, 'invalid_input');
  assert.equal(
    must(await api.post(`/v1/buyer/instruments/${card.id}/lower-cap`, { spendingCapMinor: 2000 }), 200)
      .spendingCapMinor,
    2000,
  );
  assert.equal(
    (await api.post(`/v1/buyer/instruments/${card.id}/lower-cap`, { spendingCapMinor: 3000 })).body.code,
    'invalid_input',
  );
});

test('an unsaved setup can be discarded (idempotent, bounded sessions too): it is never resumed, completed or saved', async () => {
  const { shop, email, session, api } = await buyerAtShop();
  const setup = must(await api.post('/v1/buyer/card-setups', {}), 201);
  must(await api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod: 'pm_sandbox_visa' }), 200);
  assert.equal(
    must(await api.post('/v1/buyer/card-setups', {}), 201).setupId,
    setup.setupId,
    'a succeeded, unsaved setup resumes',
  );
  const other = await buyerAtShop();
  const foreign = await other.api.post(`/v1/buyer/card-setups/${setup.setupId}/discard`, {});
  assert.deepEqual([foreign.status, foreign.body.code], [404, 'not_found']);

  const dropped = must(await api.post(`/v1/buyer/card-setups/${setup.setupId}/discard`, {}), 200);
  assert.deepEqual(
    [dropped.setupId, dropped.discarded, dropped.expiresAt],
    [setup.setupId, true, w.h.clock.now().toISOString()],
  );
  assert.deepEqual(
    must(await api.post(`/v1/buyer/card-setups/${setup.setupId}/discard`, {}), 200),
    dropped,
    'discarding again changes nothing',
  );
  const fresh = must(await api.post('/v1/buyer/card-setups', {}), 201);
  assert.notEqual(fresh.setupId, setup.setupId, 'a new setup begins');
  assert.equal(fresh.status, 'pending');
  const proof = await codeFor(w, session, email, 'save_card');
  const save = await api.post('/v1/buyer/instruments', { setupId: setup.setupId, spendingCapMinor: 5000, ...proof });
  assert.deepEqual([save.status, save.body.code], [409, 'card_setup_not_ready']);
  const complete = await api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, {
    paymentMethod: 'pm_sandbox_visa',
  });
  assert.deepEqual([complete.status, complete.body.code], [409, 'card_setup_not_ready']);

  // The code was not used by the refused save: the new setup is saved with it.
  must(
    await api.post(`/v1/buyer/card-setups/${fresh.setupId}/complete`, { paymentMethod: 'pm_sandbox_mastercard' }),
    200,
  );
  const card = must(
    await api.post('/v1/buyer/instruments', { setupId: fresh.setupId, spendingCapMinor: 5000, ...proof }),
    201,
  ).instrument;
  const kept = must(await api.post(`/v1/buyer/card-setups/${fresh.setupId}/discard`, {}), 200);
  assert.deepEqual([kept.discarded, kept.instrumentId], [false, card.id], 'a saved setup is left as it is');
  assert.equal(must(await api.get('/v1/buyer/instruments'), 200).instruments.length, 1);

  const third = must(await api.post('/v1/buyer/card-setups', {}), 201);
  const minted = must(await shop.api.post('/v1/integration/buyer-sessions', { merchantId: shop.shopId, email }), 201);
  const bounded = restClient(w.h.url, minted.token);
  assert.equal(must(await bounded.post(`/v1/buyer/card-setups/${third.setupId}/discard`, {}), 200).discarded, true);
  assert.notEqual(must(await api.post('/v1/buyer/card-setups', {}), 201).setupId, third.setupId);
  const noShop = restClient(w.h.url, await signIn(w, email));
  assert.equal(
    (await noShop.post(`/v1/buyer/card-setups/${third.setupId}/discard`, {})).status,
    404,
    'only the setup’s shop session reaches it',
  );
});
