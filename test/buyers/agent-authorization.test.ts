/**
 * Authorizing an agent in one step (the OAuth authorize page's API): a session signed in without a shop chooses one
 * (scope_buyer_session), ONE e-mailed code names and confirms the agent, shop, card and limits, and authorize_agent
 * creates the agent and its permission (saving a card just entered) in one transaction. Over every surface.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { codeIn } from '../support/smtp.ts';
import { restClient } from '../support/rest.ts';
import { SURFACES } from '../support/surfaces.ts';
import { count } from '../support/spine.ts';
import {
  limits,
  merchantShop,
  must,
  newEmail,
  saveCard,
  signIn,
  startWorld,
  type MerchantShop,
  type World,
} from '../support/buyers.ts';

let w: World;
let shop: MerchantShop;
before(async () => {
  w = await startWorld();
  shop = await merchantShop(w.h, { priceMinor: 5000, discoverable: true });
});
after(() => w?.close());

const details = (extra: Record<string, unknown>) => ({
  name: 'Desktop assistant',
  ...limits(w, { perPurchaseCapMinor: 6000, allowanceMinor: 10_000, windowHours: 168 }),
  ...extra,
});

for (const surface of SURFACES) {
  test(`${surface.name}: signed in without a shop, the buyer chooses one, and one code creates the agent and its permission`, async () => {
    const email = newEmail();
    const shopless = await signIn(w, email);
    const first = await surface.connect(w.h, shopless);
    let scoped: string;
    try {
      // Without a shop nothing can be authorized; choosing one gives a full session for it, ending when this one ends.
      const early = await first.call('request_verification_code', {
        purpose: 'authorize_agent',
        authorization: details({ instrumentId: 'ins_x' }),
      });
      assert.equal(!early.ok && early.code, 'session_shop_required');
      const before = must(await restClient(w.h.url, shopless).get('/v1/buyer/session'), 200);
      assert.equal(before.merchantId, null);
      const unknown = await first.call('scope_buyer_session', { merchantId: 'shop_nope' });
      assert.equal(!unknown.ok && unknown.code, 'not_found');
      const chosen = await first.call('scope_buyer_session', { merchantId: shop.shopId });
      assert.ok(chosen.ok, JSON.stringify(chosen));
      assert.deepEqual([chosen.output.mode, chosen.output.merchantId], ['full', shop.shopId]);
      assert.ok(new Date(chosen.output.expiresAt).getTime() <= w.h.clock.now().getTime() + 3600_000);
      scoped = chosen.output.token;
    } finally {
      await first.done();
    }
    const card = await saveCard(w, scoped, email, 'pm_sandbox_visa', 100_000);
    const { call, done } = await surface.connect(w.h, scoped);
    try {
      const mails = w.box.count(email);
      const asked = await call('request_verification_code', {
        purpose: 'authorize_agent',
        authorization: details({ instrumentId: card.id }),
      });
      assert.ok(asked.ok, JSON.stringify(asked));
      assert.equal(w.box.count(email), mails + 1, 'one code for the whole authorization');
      const mail = w.box.last(email);
      // The e-mail says what the code authorizes.
      for (const part of ['“Desktop assistant”', 'to buy at', '€60.00', '€100.00', '7 days', 'Visa •••• 4242'])
        assert.ok(mail.text.includes(part), `${part} in ${mail.text}`);
      const proof = { challengeId: asked.output.challengeId, code: codeIn(mail) };
      // The code confirms exactly those details: a larger allowance is refused, and nothing is created.
      const widened = await call('authorize_agent', {
        ...details({ instrumentId: card.id }),
        allowanceMinor: 50_000,
        ...proof,
      });
      assert.equal(!widened.ok && widened.code, 'verification_code_mismatch');
      const agents = await count(w.h.db, 'from agents a join buyers b on b.id = a.buyer_id where b.email = ?', [email]);
      assert.equal(agents, 0);
      const done1 = await call('authorize_agent', { ...details({ instrumentId: card.id }), ...proof });
      assert.ok(done1.ok, JSON.stringify(done1));
      const out = done1.output;
      assert.equal(out.agent.name, 'Desktop assistant');
      assert.equal(out.cardSaved, false);
      assert.deepEqual(
        [
          out.permission.agentId,
          out.permission.merchantId,
          out.permission.instrumentId,
          out.permission.perPurchaseCapMinor,
          out.permission.allowanceMinor,
          out.permission.status,
        ],
        [out.agent.id, shop.shopId, card.id, 6000, 10_000, 'active'],
      );
      // The code works once.
      const again = await call('authorize_agent', { ...details({ instrumentId: card.id }), ...proof });
      assert.equal(!again.ok && again.code, 'verification_code_expired');
      // The agent buys within its permission with its credential.
      must(
        await restClient(w.h.url, out.token).post('/v1/ticketing/quotes', { tierId: shop.tierId, quantity: 1 }),
        201,
      );
    } finally {
      await done();
    }
  });
}

test('a card just entered in the provider form is saved with the authorization, its cap the per-purchase cap', async () => {
  const email = newEmail();
  const session = await signIn(w, email, shop.shopId);
  const api = restClient(w.h.url, session);
  const setup = must(await api.post('/v1/buyer/card-setups', {}), 201);
  // Before the form answered, the setup cannot be authorized (checked before any code is sent).
  const early = await api.post('/v1/buyer/verification-codes', {
    purpose: 'authorize_agent',
    authorization: details({ setupId: setup.setupId }),
  });
  assert.deepEqual([early.status, early.body.code], [409, 'card_setup_not_ready']);
  must(
    await api.post(`/v1/buyer/card-setups/${setup.setupId}/complete`, { paymentMethod: 'pm_sandbox_mastercard' }),
    200,
  );
  const asked = must(
    await api.post('/v1/buyer/verification-codes', {
      purpose: 'authorize_agent',
      authorization: details({ setupId: setup.setupId }),
    }),
    201,
  );
  assert.match(w.box.last(email).text, /Mastercard •••• \d{4}/);
  const out = must(
    await api.post('/v1/buyer/agent-authorizations', {
      ...details({ setupId: setup.setupId }),
      challengeId: asked.challengeId,
      code: codeIn(w.box.last(email)),
    }),
    201,
  );
  assert.equal(out.cardSaved, true);
  assert.deepEqual(
    [out.instrument.scheme, out.instrument.spendingCapMinor, out.instrument.merchantId],
    ['mastercard', 6000, shop.shopId],
  );
  assert.equal(out.permission.instrumentId, out.instrument.id);
  const { instruments } = must(await api.get('/v1/buyer/instruments'), 200);
  assert.deepEqual(
    instruments.map((i: { id: string }) => i.id),
    [out.instrument.id],
  );
});

test('refusals: bounded sessions, a code without its details, details on another purpose, two cards or none', async () => {
  const email = newEmail();
  const session = await signIn(w, email, shop.shopId);
  const api = restClient(w.h.url, session);
  const missing = await api.post('/v1/buyer/verification-codes', { purpose: 'authorize_agent' });
  assert.deepEqual([missing.status, missing.body.code], [400, 'invalid_input']);
  const misplaced = await api.post('/v1/buyer/verification-codes', {
    purpose: 'create_agent',
    authorization: details({ instrumentId: 'ins_x' }),
  });
  assert.deepEqual([misplaced.status, misplaced.body.code], [400, 'invalid_input']);
  const both = await api.post('/v1/buyer/verification-codes', {
    purpose: 'authorize_agent',
    authorization: details({ instrumentId: 'ins_x', setupId: 'cst_x' }),
  });
  assert.deepEqual([both.status, both.body.code], [400, 'invalid_input']);
  const none = await api.post('/v1/buyer/verification-codes', {
    purpose: 'authorize_agent',
    authorization: details({}),
  });
  assert.deepEqual([none.status, none.body.code], [400, 'invalid_input']);
  const foreign = await api.post('/v1/buyer/verification-codes', {
    purpose: 'authorize_agent',
    authorization: details({ instrumentId: 'ins_not_mine' }),
  });
  assert.deepEqual([foreign.status, foreign.body.code], [404, 'instrument_not_found']);
  // A shop that is not discoverable, where the buyer holds no permission, is not found (as elsewhere for a buyer).
  const hidden = await merchantShop(w.h);
  const scopedAway = await api.post('/v1/buyer/session-scopes', { merchantId: hidden.shopId });
  assert.deepEqual([scopedAway.status, scopedAway.body.code], [404, 'not_found']);
  const unknownField = await api.post('/v1/buyer/agent-authorizations', {
    ...details({ instrumentId: 'ins_x' }),
    challengeId: 'vch_x',
    code: '123456',
    extra: 1,
  });
  assert.deepEqual([unknownField.status, unknownField.body.code], [400, 'unknown_field']);
  // A merchant-minted bounded session neither chooses another shop nor authorizes an agent.
  const bounded = must(
    await shop.api.post('/v1/integration/buyer-sessions', { merchantId: shop.shopId, email }),
    201,
  ).token;
  const b = restClient(w.h.url, bounded);
  assert.deepEqual([(await b.post('/v1/buyer/session-scopes', { merchantId: shop.shopId })).status], [403]);
  assert.equal(
    (
      await b.post('/v1/buyer/agent-authorizations', {
        ...details({ instrumentId: 'ins_x' }),
        challengeId: 'vch_x',
        code: '123456',
      })
    ).status,
    403,
  );
  const code = await b.post('/v1/buyer/verification-codes', {
    purpose: 'authorize_agent',
    authorization: details({ instrumentId: 'ins_x' }),
  });
  assert.deepEqual([code.status, code.body.code], [403, 'forbidden']);
});
