import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listOutboxMail } from '../../src/mail/outbox.ts';
import { startHarness } from '../support/harness.ts';
import { restClient } from '../support/rest.ts';
import { signInTokenIn } from '../support/smtp.ts';
import { codeFor, merchantShop, must, newEmail, signIn } from '../support/buyers.ts';
import { worldPerFile } from '../support/world-per-file.ts';
import { verifies } from '../support/requirements.ts';

const w = worldPerFile();

test('a magic link received over SMTP signs the buyer in with a full session for the shop', async () => {
  const shop = await merchantShop(w.h);
  const email = newEmail();
  const anon = restClient(w.h.url);
  const asked = must(
    await anon.post('/v1/buyer/sign-in-links', { email: email.toUpperCase(), merchantId: shop.shopId, lang: 'de' }),
    202,
  );
  assert.equal(asked.sent, true);
  const mail = w.box.last(email);
  assert.equal(mail.subject, 'Ihr Anmeldelink');
  assert.match(mail.text, new RegExp(`${w.h.url}/buyer/verify\\?lang=de#token=`));
  const session = must(await anon.post('/v1/buyer/sessions', { token: signInTokenIn(mail) }), 201);
  assert.equal(session.mode, 'full');
  assert.equal(session.merchantId, shop.shopId);
  assert.equal(session.lang, 'de');
  const me = must(await restClient(w.h.url, session.token).get('/v1/buyer/session'), 200);
  assert.deepEqual(me, {
    buyerId: session.buyerId,
    email,
    mode: 'full',
    merchantId: shop.shopId,
    attested: false,
    lang: 'de',
  });
  const token = await w.h.db.execute<{ token_hash: string }>('select token_hash from sign_in_links where email = ?', [
    email,
  ]);
  assert.equal(token.length, 1);
  assert.notEqual(token[0]!.token_hash, signInTokenIn(mail), 'only the hash is stored');
});

test('a sign-in link works once and expires after 15 minutes', async () => {
  const email = newEmail();
  const anon = restClient(w.h.url);
  must(await anon.post('/v1/buyer/sign-in-links', { email }), 202);
  const first = signInTokenIn(w.box.last(email));
  must(await anon.post('/v1/buyer/sessions', { token: first }), 201);
  const again = await anon.post('/v1/buyer/sessions', { token: first });
  assert.equal(again.status, 422);
  assert.equal(again.body.code, 'sign_in_link_invalid');

  must(await anon.post('/v1/buyer/sign-in-links', { email }), 202);
  const second = signInTokenIn(w.box.last(email));
  w.h.clock.advance(15 * 60_000 + 1000);
  const late = await anon.post('/v1/buyer/sessions', { token: second });
  assert.equal(late.body.code, 'sign_in_link_invalid');
});

test(`${verifies('SPEC-5.5-partner-origin-sign-in')}sign-in and verification routes refuse partner origins but accept the service’s own`, async () => {
  const email = newEmail();
  const anon = restClient(w.h.url);
  const partner = { origin: 'https://partner.example' };
  const refused = await anon.post('/v1/buyer/sign-in-links', { email }, partner);
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, 'partner_origin_refused');
  assert.equal(w.box.count(email), 0, 'no mail was sent');
  must(await anon.post('/v1/buyer/sign-in-links', { email }, { origin: new URL(w.h.url).origin }), 202);
  const token = signInTokenIn(w.box.last(email));
  assert.equal((await anon.post('/v1/buyer/sessions', { token }, partner)).body.code, 'partner_origin_refused');
  const session = must(await anon.post('/v1/buyer/sessions', { token }), 201).token;
  const api = restClient(w.h.url, session);
  const code = await api.post('/v1/buyer/verification-codes', { purpose: 'create_agent' }, partner);
  assert.equal(code.status, 403);
  assert.equal(code.body.code, 'partner_origin_refused');
  const proof = await codeFor(w, session, email, 'create_agent');
  const create = await api.post('/v1/buyer/agents', { name: 'A', ...proof }, partner);
  assert.equal(create.body.code, 'partner_origin_refused');
  must(await api.post('/v1/buyer/agents', { name: 'A', ...proof }), 201);
});

test('a sign-in for an unknown shop is 404 and unknown fields are refused', async () => {
  const anon = restClient(w.h.url);
  assert.equal(
    (await anon.post('/v1/buyer/sign-in-links', { email: newEmail(), merchantId: 'shop_nope000000000' })).status,
    404,
  );
  const extra = await anon.post('/v1/buyer/sign-in-links', { email: newEmail(), mode: 'full' });
  assert.equal(extra.status, 400);
  assert.equal(extra.body.code, 'unknown_field');
});

test('without SMTP, mail goes to the outbox a developer can read', async () => {
  const h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
  try {
    const email = newEmail();
    must(await restClient(h.url).post('/v1/buyer/sign-in-links', { email }), 202);
    const mail = await listOutboxMail(h.db, { to: email, limit: 5 });
    assert.equal(mail.length, 1);
    assert.equal(mail[0]!.subject, 'Your sign-in link');
    const session = must(
      await restClient(h.url).post('/v1/buyer/sessions', { token: signInTokenIn({ text: mail[0]!.text } as never) }),
      201,
    );
    assert.equal(session.mode, 'full');
    assert.equal(session.merchantId, null);
  } finally {
    await h.close();
  }
});

test('a full session signed in by link can act as the buyer', async () => {
  const shop = await merchantShop(w.h);
  const email = newEmail();
  const session = await signIn(w, email, shop.shopId);
  const list = must(await restClient(w.h.url, session).get('/v1/buyer/agents'), 200);
  assert.deepEqual(list.agents, []);
});

test('sign-in links to one address are throttled: the sixth within 15 minutes is 429 with Retry-After', async () => {
  const email = newEmail();
  const anon = restClient(w.h.url);
  for (let i = 0; i < 5; i++) must(await anon.post('/v1/buyer/sign-in-links', { email }), 202);
  const sixth = await anon.post('/v1/buyer/sign-in-links', { email });
  assert.equal(sixth.status, 429);
  assert.equal(sixth.body.code, 'rate_limited');
  assert.equal(sixth.headers.get('retry-after'), String(sixth.body.retryAfter));
  assert.equal(w.box.count(email), 5);
  w.h.clock.advance(15 * 60_000);
  must(await anon.post('/v1/buyer/sign-in-links', { email }), 202);
});
