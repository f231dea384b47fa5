/** Order e-mails follow a merchant-minted session's `lang` over the buyer's saved language (spec §2.3; issue #36). */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { restClient } from '../support/rest.ts';
import { signInTokenIn } from '../support/smtp.ts';
import { buy, merchantShop, must, newEmail, startWorld, type World } from '../support/buyers.ts';

let w: World;
before(async () => {
  w = await startWorld();
});
after(async () => {
  await w?.close();
});

test('issue #36: a purchase through a session minted with lang "de" is mailed in German, the buyer having chosen French', async () => {
  const m = await merchantShop(w.h, { discoverable: true, priceMinor: 1250 });
  const email = newEmail();
  const anon = restClient(w.h.url);
  must(await anon.post('/v1/buyer/sign-in-links', { email, lang: 'fr' }), 202);
  const full = must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.box.last(email)) }), 201);
  const minted = must(
    await m.api.post('/v1/integration/buyer-sessions', { merchantId: m.shopId, email, lang: 'de' }),
    201,
  );
  assert.equal(minted.lang, 'de');
  must(await buy(restClient(w.h.url, minted.token), m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200);
  await w.h.app.orderMail.idle();
  assert.match(w.box.last(email).subject, /^Ihre Tickets für /);
  // The buyer's own purchase (a full session) still follows the buyer's choice.
  must(await buy(restClient(w.h.url, full.token), m.tierId, 1, { paymentMethod: 'pm_sandbox_visa' }), 200);
  await w.h.app.orderMail.idle();
  assert.match(w.box.last(email).subject, /^Vos billets pour /);
});
