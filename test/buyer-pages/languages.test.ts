/**
 * Every buyer page in every language, as the server renders it: the right `<html lang>` and `Content-Language`,
 * the language menu, and no English message left in another language's page.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { LANGS } from '../../src/i18n/langs.ts';
import { BUYER_PAGES } from '../../src/buyer-pages/router.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { englishLeakFinder, htmlSegments } from '../support/english-leaks.ts';
import { verifies } from '../support/requirements.ts';

let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

async function page(path: string, lang: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.url}${path}?lang=${encodeURIComponent(lang)}`, { headers });
  assert.equal(res.status, 200, `${path} ${lang}`);
  return { res, html: await res.text() };
}

test('no page renders an English message in another language, and <html lang> is right, for every page × every language', async () => {
  let checked = 0;
  for (const lang of LANGS) {
    const finder = englishLeakFinder(lang);
    for (const p of BUYER_PAGES) {
      const { res, html } = await page(p.path, lang);
      assert.match(html, new RegExp(`<html lang="${lang}" dir="ltr">`), `${p.path} ${lang}`);
      assert.equal(res.headers.get('content-language'), lang);
      assert.match(
        html,
        new RegExp(`<main id="main"[^>]* data-lang="${lang}"`),
        'the page script loads the same language',
      );
      const segments = htmlSegments(html, lang);
      assert.ok(segments.length > 20, `${p.path} ${lang}: ${segments.length} segments`);
      if (lang !== 'en') assert.deepEqual(finder.find(segments), [], `${p.path} in ${lang}`);
      checked++;
    }
  }
  assert.equal(checked, LANGS.length * BUYER_PAGES.length);
});

test('the check finds English: an English page read as German is full of leaks', async () => {
  const { html } = await page('/buyer/permissions', 'en');
  const leaks = englishLeakFinder('de').find(htmlSegments(html, 'en'));
  assert.ok(leaks.length > 20, leaks.join('\n'));
  assert.ok(leaks.some((l) => l.startsWith('common.skipLink: "Skip to main content"')));
  assert.ok(
    leaks.some((l) => l.startsWith('permissions.grantSubmit:')),
    'attribute values count (data-final)',
  );
});

test(`${verifies('SPEC-1-six-languages')}every page offers the six languages, each named in itself, with the current one marked and the page kept`, async () => {
  for (const p of BUYER_PAGES) {
    const { html } = await page(p.path, 'hu');
    const menu = /<nav class="languages" aria-label="Nyelv"><ul>(.*?)<\/ul><\/nav>/s.exec(html)?.[1];
    assert.ok(menu, `${p.path} has the language menu`);
    const links = [
      ...menu.matchAll(/<a href="([^"]+)" hreflang="([^"]+)" lang="([^"]+)"( aria-current="true")?>([^<]+)<\/a>/g),
    ];
    assert.deepEqual(
      links.map((m) => m[2]),
      [...LANGS],
    );
    assert.deepEqual(
      links.map((m) => m[5]),
      ['English', 'Deutsch', 'Español', 'Français', 'Magyar', 'Português (Brasil)'],
    );
    assert.deepEqual(
      links.filter((m) => m[4]).map((m) => m[2]),
      ['hu'],
    );
    for (const m of links) assert.equal(m[1], `${p.path}?lang=${encodeURIComponent(m[2]!)}`);
  }
});

test('without ?lang= the browser’s languages choose, by quality; a language we lack falls back to English', async () => {
  const cases: [string, string][] = [
    ['fr-CA,fr;q=0.9,en;q=0.5', 'fr'],
    ['it;q=1, pt;q=0.8', 'pt-BR'],
    ['de-AT', 'de'],
    ['en;q=0.2, hu;q=0.9', 'hu'],
    ['es-419', 'es'],
    ['ja, zh', 'en'],
  ];
  for (const [accept, want] of cases) {
    const res = await fetch(`${h.url}/buyer/sign-in`, { headers: { 'accept-language': accept } });
    const html = await res.text();
    assert.equal(res.headers.get('content-language'), want, accept);
    assert.match(html, new RegExp(`<html lang="${want}"`));
  }
  const explicit = await fetch(`${h.url}/buyer/agents?lang=es`, { headers: { 'accept-language': 'de' } });
  assert.equal(explicit.headers.get('content-language'), 'es', 'an explicit ?lang= wins');
  await explicit.arrayBuffer();
});

test('the page script’s catalog is served for each language, translated over English', async () => {
  for (const lang of LANGS) {
    const res = await fetch(`${h.url}/buyer/i18n/${lang}.json`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as {
      lang: string;
      messages: { errors: Record<string, string>; language: { name: string } };
    };
    assert.equal(body.lang, lang);
    assert.ok(body.messages.errors.verification_code_invalid_left_other?.includes('{{count}}'));
  }
  const fr = (await (await fetch(`${h.url}/buyer/i18n/fr.json`)).json()) as {
    messages: { errors: Record<string, string> };
  };
  assert.equal(fr.messages.errors.network, 'Impossible de joindre Tessera. Vérifiez votre connexion et réessayez.');
  assert.equal((await fetch(`${h.url}/buyer/i18n/it.json`)).status, 404);
});
