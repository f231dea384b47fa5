/**
 * The buyer's own language choice (set_buyer_language, the pages' language menu): remembered on the buyer, followed
 * by full sessions, later sign-in links and emailed codes; a merchant-minted session's `lang` still comes first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restClient } from '../support/rest.ts';
import { signInTokenIn } from '../support/smtp.ts';
import { SURFACES } from '../support/surfaces.ts';
import { merchantShop, must, newEmail, signIn } from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';
import { verifies } from '../support/requirements.ts';

const w = worldPerFile();

for (const surface of SURFACES) {
  test(`over ${surface.name}, a buyer’s language choice is remembered: the session, codes and later sign-in links follow it`, async () => {
    const shop = await merchantShop(w.h);
    const email = newEmail();
    const anon = restClient(w.h.url);
    must(await anon.post('/v1/buyer/sign-in-links', { email, merchantId: shop.shopId, lang: 'de' }), 202);
    const session = must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(w.box.last(email)) }), 201);
    assert.equal(session.lang, 'de');
    const conn = await surface.connect(w.h, session.token);
    try {
      const set = await conn.call('set_buyer_language', { lang: 'hu' });
      assert.ok(set.ok, JSON.stringify(set));
      assert.deepEqual(set.output, { buyerId: session.buyerId, lang: 'hu', sessionLang: 'hu' });
      const me = await conn.call('get_buyer_session', {});
      assert.ok(me.ok);
      assert.equal(me.output.lang, 'hu', 'a full session follows the buyer’s latest choice');
      const code = await conn.call('request_verification_code', { purpose: 'create_agent' });
      assert.ok(code.ok, JSON.stringify(code));
      assert.equal(w.box.last(email).subject, 'Ellenőrző kód');
      const again = await conn.call('set_buyer_language', { lang: 'hu' });
      assert.ok(again.ok, 'choosing the same language again is harmless');
    } finally {
      await conn.done();
    }
    must(await anon.post('/v1/buyer/sign-in-links', { email }), 202);
    const link = w.box.last(email);
    assert.equal(
      link.subject,
      'Bejelentkezési link',
      'a later sign-in link without a language uses the remembered one',
    );
    assert.match(link.text, /\/buyer\/verify\?lang=hu#token=/);
  });
}

test(`${verifies('SPEC-2.3-session-lang')}a merchant-minted session keeps its own language; without one it follows the buyer’s choice`, async () => {
  const shop = await merchantShop(w.h);
  const email = newEmail();
  const full = restClient(w.h.url, await signIn(w, email, shop.shopId));
  must(await full.call('PUT', '/v1/buyer/language', { lang: 'es' }), 200);
  const withLang = must(
    await shop.api.post('/v1/integration/buyer-sessions', { merchantId: shop.shopId, email, lang: 'fr' }),
    201,
  );
  const bounded = restClient(w.h.url, withLang.token);
  assert.equal(must(await bounded.get('/v1/buyer/session'), 200).lang, 'fr');
  const changed = must(await bounded.call('PUT', '/v1/buyer/language', { lang: 'pt-BR' }), 200);
  assert.deepEqual(
    [changed.lang, changed.sessionLang],
    ['pt-BR', 'fr'],
    'a bounded session may save the choice; its minted language stays',
  );
  const without = must(await shop.api.post('/v1/integration/buyer-sessions', { merchantId: shop.shopId, email }), 201);
  assert.equal(must(await restClient(w.h.url, without.token).get('/v1/buyer/session'), 200).lang, 'pt-BR');
  assert.equal(must(await full.get('/v1/buyer/session'), 200).lang, 'pt-BR');
});

test('a language that is not one of the six, a missing or unknown field, or no session is refused', async () => {
  const email = newEmail();
  const api = restClient(w.h.url, await signIn(w, email));
  for (const body of [{ lang: 'it' }, { lang: 'pt' }, { lang: 'DE' }, { lang: '' }, {}, { lang: 'de', extra: 1 }]) {
    const res = await api.call('PUT', '/v1/buyer/language', body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.ok(['invalid_input', 'unknown_field'].includes(res.body.code), JSON.stringify(res.body));
  }
  const anon = await restClient(w.h.url).call('PUT', '/v1/buyer/language', { lang: 'de' });
  assert.equal(anon.status, 401);
  assert.equal(must(await api.get('/v1/buyer/session'), 200).lang, null, 'nothing was saved');
});
