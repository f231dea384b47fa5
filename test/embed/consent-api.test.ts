/**
 * The consent view's server side over real HTTP: the bounded session stepped up by an emailed code, the one-day
 * draft (ManualClock), CORS on the buyer API for the shop's embed origins only, and the view's frame-ancestors.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LANGS } from '../../src/i18n/langs.ts';
import { englishLeakFinder, htmlSegments } from '../support/english-leaks.ts';
import { restClient } from '../support/rest.ts';
import { SURFACES } from '../support/surfaces.ts';
import { pruneExpired } from '../../src/storage/retention.ts';
import { codeIn } from '../support/smtp.ts';
import { merchantShop, must, newEmail, startWorld, type MerchantShop, type World } from '../support/buyers.ts';
import { verifies } from '../support/requirements.ts';

let w: World;
let shop: MerchantShop;
let other: MerchantShop;
const PARTNER = 'http://localhost:5555';
const STRANGER = 'http://localhost:6666';

before(async () => {
  w = await startWorld();
  shop = await merchantShop(w.h);
  other = await merchantShop(w.h);
  must(
    await shop.api.patch(`/v1/integration/shops/${shop.shopId}`, { embedOrigin: `${PARTNER} https://shop.example` }),
    200,
  );
});
after(async () => {
  await w?.close();
});

const mint = async (s: MerchantShop, email: string) =>
  must(await s.api.post('/v1/integration/buyer-sessions', { merchantId: s.shopId, email }), 201).token as string;

async function codeFor(token: string, email: string, purpose: string) {
  const asked = must(await restClient(w.h.url, token).post('/v1/buyer/verification-codes', { purpose }), 201);
  return { challengeId: asked.challengeId as string, code: codeIn(w.box.last(email)) };
}

test(`${verifies('SPEC-5.5-partner-origin-sign-in', 'SPEC-5.5-emailed-code')}a bounded session steps up to a full one with the emailed verify_session code, never from a partner origin`, async () => {
  const email = newEmail();
  const bounded = await mint(shop, email);
  const b = restClient(w.h.url, bounded);
  const refused = await b.post('/v1/buyer/verification-codes', { purpose: 'create_agent' });
  assert.equal(refused.status, 403);
  assert.equal(refused.body.code, 'forbidden', 'a bounded session asks a code for verify_session only');
  const proof = await codeFor(bounded, email, 'verify_session');
  const fromPartner = await b.post('/v1/buyer/session-step-ups', proof, { origin: PARTNER });
  assert.equal(fromPartner.status, 403);
  assert.equal(fromPartner.body.code, 'partner_origin_refused');
  const wrong = await b.post('/v1/buyer/session-step-ups', {
    challengeId: proof.challengeId,
    code: proof.code === '000000' ? '111111' : '000000',
  });
  assert.equal(wrong.body.code, 'verification_code_invalid');
  const full = must(await b.post('/v1/buyer/session-step-ups', proof), 201);
  assert.equal(full.mode, 'full');
  assert.equal(full.merchantId, shop.shopId);
  const again = await b.post('/v1/buyer/session-step-ups', proof);
  assert.equal(again.body.code, 'verification_code_expired', 'the code works once');
  // The full session still needs a code per operation.
  const noCode = await restClient(w.h.url, full.token).post('/v1/buyer/agents', { name: 'X' });
  assert.equal(noCode.status, 400);
  const agentCode = await codeFor(full.token, email, 'create_agent');
  must(await restClient(w.h.url, full.token).post('/v1/buyer/agents', { name: 'Helper', ...agentCode }), 201);
});

test(`${verifies('SPEC-3-draft-kept-one-day')}the draft is kept one day per buyer and shop, then it is gone; discarding asks nothing more`, async () => {
  const email = newEmail();
  const b = restClient(w.h.url, await mint(shop, email));
  assert.deepEqual(must(await b.get('/v1/buyer/consent-draft'), 200), { draft: null });
  const saved = must(
    await b.put('/v1/buyer/consent-draft', { step: 'limits', limits: { perPurchaseCapMinor: 5000, windowHours: 168 } }),
    200,
  ).draft;
  assert.equal(saved.step, 'limits');
  assert.equal(saved.merchantId, shop.shopId);
  assert.equal(new Date(saved.expiresAt).getTime() - w.h.clock.now().getTime(), 86_400_000);
  assert.deepEqual(must(await b.get('/v1/buyer/consent-draft'), 200).draft, saved);
  // Unknown fields, unknown steps and another buyer's objects are refused.
  assert.equal((await b.put('/v1/buyer/consent-draft', { step: 'agent', extra: 1 })).body.code, 'unknown_field');
  assert.equal((await b.put('/v1/buyer/consent-draft', { step: 'verify' })).status, 400);
  assert.equal((await b.put('/v1/buyer/consent-draft', { step: 'card', agentId: 'agt_0000000000aa' })).status, 404);
  // Another shop's session of the same buyer has its own (no) draft.
  assert.deepEqual(must(await restClient(w.h.url, await mint(other, email)).get('/v1/buyer/consent-draft'), 200), {
    draft: null,
  });
  // Just before a day it is there; after a day it is gone (a new session: the old one expired meanwhile).
  w.h.clock.advance(86_400_000 - 1000);
  assert.equal(
    must(await restClient(w.h.url, await mint(shop, email)).get('/v1/buyer/consent-draft'), 200).draft?.step,
    'limits',
  );
  w.h.clock.advance(1000);
  const later = restClient(w.h.url, await mint(shop, email));
  assert.deepEqual(must(await later.get('/v1/buyer/consent-draft'), 200), { draft: null });
  const n = (
    await w.h.db.execute<{ n: number }>('select count(*)::int as n from consent_drafts where expires_at <= ?', [
      w.h.clock.now(),
    ])
  )[0]!.n;
  assert.ok(n >= 1, 'the expired row is still stored until the sweeper’s retention pass');
  assert.ok((await pruneExpired(w.h.db, w.h.clock.now())).consentDrafts >= 1);
  const left = (
    await w.h.db.execute<{ left: number }>('select count(*)::int as left from consent_drafts where expires_at <= ?', [
      w.h.clock.now(),
    ])
  )[0]!.left;
  assert.equal(left, 0, 'the retention pass deleted it');
  must(await later.put('/v1/buyer/consent-draft', { step: 'agent' }), 200);
  assert.deepEqual(must(await later.post('/v1/buyer/consent-draft/discard', {}), 200), { discarded: true });
  assert.deepEqual(must(await later.post('/v1/buyer/consent-draft/discard', {}), 200), { discarded: false });
  assert.deepEqual(must(await later.get('/v1/buyer/consent-draft'), 200), { draft: null });
});

test(`${verifies('SPEC-5.7-embed-origins-govern')}CORS on the buyer API: preflight for an embed origin of some shop, the answer only for the session shop’s origins, never credentials`, async () => {
  const preflight = (origin: string) =>
    fetch(new URL('/v1/buyer/session', w.h.url), {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
  const ok = await preflight(PARTNER);
  assert.equal(ok.status, 204);
  assert.equal(ok.headers.get('access-control-allow-origin'), PARTNER);
  assert.match(ok.headers.get('access-control-allow-headers') ?? '', /authorization/);
  assert.equal(ok.headers.get('access-control-allow-credentials'), null);
  const no = await preflight(STRANGER);
  assert.equal(no.headers.get('access-control-allow-origin'), null);

  const email = newEmail();
  const read = (token: string, origin: string) => restClient(w.h.url, token).get('/v1/buyer/session', { origin });
  const mine = await read(await mint(shop, email), PARTNER);
  assert.equal(mine.status, 200);
  assert.equal(mine.headers.get('access-control-allow-origin'), PARTNER);
  assert.equal(mine.headers.get('access-control-allow-credentials'), null);
  assert.match(mine.headers.get('vary') ?? '', /origin/i);
  // A session of a shop that does not list the origin, a stranger origin, and no bearer: no CORS header.
  assert.equal((await read(await mint(other, email), PARTNER)).headers.get('access-control-allow-origin'), null);
  assert.equal((await read(await mint(shop, email), STRANGER)).headers.get('access-control-allow-origin'), null);
  assert.equal(
    (await restClient(w.h.url).get('/v1/buyer/session', { origin: PARTNER })).headers.get(
      'access-control-allow-origin',
    ),
    null,
  );
  // Not the buyer API: no CORS at all.
  assert.equal(
    (
      await restClient(w.h.url, shop.apiKey).get(`/v1/integration/pools?merchantId=${shop.shopId}`, { origin: PARTNER })
    ).headers.get('access-control-allow-origin'),
    null,
  );
  // Sign-in stays refused to partner origins, embed origin or not.
  const signIn = await restClient(w.h.url).post('/v1/buyer/sign-in-links', { email }, { origin: PARTNER });
  assert.equal(signIn.body.code, 'partner_origin_refused');
});

test(`${verifies('SPEC-5.7-embed-origins-govern', 'SPEC-1-embeddable-consent')}only the shop’s embed origins may frame the consent view; every other page keeps its own frame-ancestors`, async () => {
  const view = (q: string) => fetch(new URL(`/embed/consent?${q}`, w.h.url));
  const ok = await view(`shop=${shop.shopId}&origin=${encodeURIComponent(PARTNER)}`);
  assert.equal(ok.status, 200);
  const csp = ok.headers.get('content-security-policy') ?? '';
  assert.match(csp, new RegExp(`frame-ancestors ${PARTNER} https://shop\\.example(;|$)`));
  assert.match(csp, /script-src 'self'/);
  assert.doesNotMatch(csp, /unsafe-inline/);
  assert.equal(ok.headers.get('x-frame-options'), null);
  const html = await ok.text();
  assert.match(html, new RegExp(`data-origin="${PARTNER}"`));
  assert.doesNotMatch(html, /token|bearer/i, 'no session in the page');

  const notListed = await view(`shop=${shop.shopId}&origin=${encodeURIComponent(STRANGER)}`);
  assert.equal(notListed.status, 400);
  assert.doesNotMatch(await notListed.text(), /data-origin=/, 'a view opened for an unlisted origin posts nothing');
  const none = await view(`shop=${other.shopId}&origin=${encodeURIComponent(PARTNER)}`);
  assert.match(
    none.headers.get('content-security-policy') ?? '',
    /frame-ancestors 'none'/,
    'a shop without embed origins: nobody frames it',
  );
  const missing = await view(`shop=shop_0000000000zz&origin=${encodeURIComponent(PARTNER)}`);
  assert.equal(missing.status, 404);
  assert.match(missing.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);

  for (const path of ['/v1/openapi.json', '/healthz', `/v1/catalog/shops/${shop.shopId}`]) {
    assert.match(
      (await fetch(new URL(path, w.h.url))).headers.get('content-security-policy') ?? '',
      /frame-ancestors 'none'/,
      path,
    );
  }
  assert.match(
    (await fetch(new URL('/buyer/agents', w.h.url))).headers.get('content-security-policy') ?? '',
    /frame-ancestors 'self'(;|$)/,
  );
});

test('the theme: a palette becomes a stylesheet from this origin; a bad one keeps the default and is reported', async () => {
  const theme = Buffer.from(
    JSON.stringify({
      background: '#101010',
      surface: '#1a1a1a',
      text: '#333333',
      accent: '#ffcc00',
      font: 'Fira Sans',
    }),
  ).toString('base64url');
  const html = await (
    await fetch(
      new URL(`/embed/consent?shop=${shop.shopId}&origin=${encodeURIComponent(PARTNER)}&theme=${theme}`, w.h.url),
    )
  ).text();
  assert.match(html, new RegExp(`href="/embed/theme.css\\?theme=${theme}"`));
  const css = await (await fetch(new URL(`/embed/theme.css?theme=${theme}`, w.h.url))).text();
  assert.match(css, /--fg: #ffffff/, 'an unreadable text colour is replaced');
  assert.match(css, /--font: "Fira Sans"/);
  const bad = Buffer.from(JSON.stringify({ background: 'red' })).toString('base64url');
  const badHtml = await (
    await fetch(
      new URL(`/embed/consent?shop=${shop.shopId}&origin=${encodeURIComponent(PARTNER)}&theme=${bad}`, w.h.url),
    )
  ).text();
  assert.match(badHtml, /data-view-error="theme_invalid"/);
  assert.doesNotMatch(badHtml, /theme\.css/);
});

test('the draft tools run the same over REST, MCP and A2A', async () => {
  for (const surface of SURFACES) {
    const email = newEmail();
    const { call, done } = await surface.connect(w.h, await mint(shop, email));
    try {
      const none = await call('get_consent_draft', {});
      assert.ok(none.ok, surface.name);
      assert.equal(none.output.draft, null, surface.name);
      const saved = await call('save_consent_draft', { step: 'agent', limits: { allowanceMinor: 10_000 } });
      assert.ok(saved.ok && saved.output.draft.step === 'agent', `${surface.name}: ${JSON.stringify(saved)}`);
      const read = await call('get_consent_draft', {});
      assert.ok(read.ok);
      assert.deepEqual(read.output.draft.limits, { allowanceMinor: 10_000 }, surface.name);
      const unknown = await call('save_consent_draft', { step: 'agent', sessionToken: 'x' });
      assert.ok(!unknown.ok && unknown.code === 'unknown_field', surface.name);
      const gone = await call('discard_consent_draft', {});
      assert.ok(gone.ok && gone.output.discarded === true, surface.name);
    } finally {
      await done();
    }
  }
});

test('the consent view in every language: <html lang> and Content-Language right, no English message left', async () => {
  for (const lang of LANGS) {
    const res = await fetch(
      new URL(`/embed/consent?shop=${shop.shopId}&origin=${encodeURIComponent(PARTNER)}&lang=${lang}`, w.h.url),
    );
    const html = await res.text();
    assert.equal(res.headers.get('content-language'), lang);
    assert.match(html, new RegExp(`<html lang="${lang}" dir="ltr">`));
    const segments = htmlSegments(html, lang);
    assert.ok(segments.length > 30, `${lang}: ${segments.length} segments`);
    if (lang !== 'en') assert.deepEqual(englishLeakFinder(lang).find(segments), [], lang);
  }
});
