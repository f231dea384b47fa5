import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCatalogs, type Messages } from '../../src/i18n/i18n.ts';
import { LANGS } from '../../src/i18n/langs.ts';
import { TOOLS } from '../../src/tools/index.ts';
import { verifies } from '../support/requirements.ts';

const EN = JSON.parse(readFileSync('src/i18n/locales/en.json', 'utf8')) as Messages;

function lookup(messages: Messages, key: string): string | undefined {
  let node: string | Messages | undefined = messages;
  for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  return typeof node === 'string' ? node : undefined;
}

test('a language becomes available by adding its catalog file; missing keys fall back to English', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-locales-'));
  try {
    writeFileSync(
      join(dir, 'en.json'),
      JSON.stringify({ language: { name: 'English' }, a: { hello: 'Hello {{name}}', only: 'English only' } }),
    );
    writeFileSync(
      join(dir, 'de.json'),
      JSON.stringify({ language: { name: 'Deutsch' }, a: { hello: 'Hallo {{name}}' } }),
    );
    writeFileSync(join(dir, 'it.json'), JSON.stringify({ a: { hello: 'Ciao' } }));
    const c = loadCatalogs(dir);
    assert.deepEqual(c.langs, ['en', 'de'], 'only the six buyer languages are accepted');
    assert.equal(c.resolve(['de-AT']), 'de');
    assert.equal(c.resolve(['it', 'de']), 'de', 'the first available candidate wins');
    assert.equal(c.resolve(['pt-BR', 'fr']), 'en');
    assert.equal(c.resolve([undefined, null]), 'en');
    assert.equal(c.translator('de')('a.hello', { name: 'Ana' }), 'Hallo Ana');
    assert.equal(c.translator('de')('a.only'), 'English only');
    assert.equal(c.translator('it')('a.hello', { name: 'Ana' }), 'Hello Ana');
    assert.deepEqual(c.messages('de'), {
      language: { name: 'Deutsch' },
      a: { hello: 'Hallo {{name}}', only: 'English only' },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every message key the pages use exists in the English catalog', () => {
  const files = [
    ...readdirSync('src/buyer-pages')
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join('src/buyer-pages', f)),
    ...readdirSync('src/buyer-pages/assets')
      .filter((f) => f.endsWith('.js'))
      .map((f) => join('src/buyer-pages/assets', f)),
  ];
  const missing: string[] = [];
  let seen = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/\bt\(\s*'([\w.]+)'|\b(?:titleKey|key): '([\w.]+)'/g)) {
      const key = (m[1] ?? m[2])!;
      seen++;
      const plural = lookup(EN, `${key}_one`) && lookup(EN, `${key}_other`);
      if (!lookup(EN, key) && !plural) missing.push(`${file}: ${key}`);
    }
  }
  assert.ok(seen > 100, `found ${seen} keys`);
  assert.deepEqual(missing, []);
});

test('every error a buyer operation may answer has a translated message', () => {
  const codes = new Set<string>([
    'unauthenticated',
    'forbidden',
    'rate_limited',
    'invalid_input',
    'internal_error',
    'unavailable',
  ]);
  for (const tool of TOOLS) if (tool.area === 'buyer') for (const code of tool.errors) codes.add(code);
  assert.deepEqual(
    [...codes].filter((c) => !lookup(EN, `errors.${c}`)),
    [],
  );
});

/** Every dotted key of a catalog section, with the `{{variables}}` its string interpolates. */
function keysWithVars(messages: Messages, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(messages)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string')
      out.set(
        key,
        [...v.matchAll(/\{\{(\w+)\}\}/g)]
          .map((m) => m[1] ?? '')
          .sort()
          .join(','),
      );
    else for (const [kk, vv] of keysWithVars(v, key)) out.set(kk, vv);
  }
  return out;
}

test('the e-mail strings are in every language’s catalog with the same keys and variables as English', () => {
  const en = keysWithVars(EN.mail as Messages);
  assert.ok(en.size >= 10);
  for (const lang of ['de', 'es', 'fr', 'hu', 'pt-BR']) {
    const catalog = JSON.parse(readFileSync(`src/i18n/locales/${lang}.json`, 'utf8')) as Messages;
    assert.deepEqual(keysWithVars(catalog.mail as Messages), en, lang);
  }
});

test('a catalog carrying only the e-mails does not offer its language to the pages, but its e-mails are translated', () => {
  const c = loadCatalogs();
  for (const lang of ['de', 'es', 'fr', 'hu', 'pt-BR'] as const) {
    const catalog = JSON.parse(readFileSync(`src/i18n/locales/${lang}.json`, 'utf8')) as Messages;
    const coversPages = Object.keys(EN).every((k) => catalog[k] !== undefined);
    assert.equal(c.langs.includes(lang), coversPages, lang);
    assert.notEqual(
      c.mailTranslator(lang)('mail.code.subject'),
      lookup(EN, 'mail.code.subject'),
      `${lang} e-mail is translated`,
    );
  }
  assert.equal(
    c.mailTranslator('de')('mail.signIn.bodyForShop', { shop: 'Arena', link: 'L', minutes: 15 }).split('\n')[0],
    'Öffnen Sie diesen Link, um sich bei Arena anzumelden:',
  );
});

const PLURAL = /_(zero|one|two|few|many|other)$/;
const OTHER_LANGS = LANGS.filter((l) => l !== 'en');
const catalogOf = (lang: string) => JSON.parse(readFileSync(`src/i18n/locales/${lang}.json`, 'utf8')) as Messages;

test('every catalog has every English key with the same variables, and plural forms by the language’s own rules', () => {
  const en = keysWithVars(EN);
  assert.ok(en.size > 200, `${en.size} English keys`);
  const plurals = new Map<string, string>(); // base key → the variables of its forms
  for (const [key, vars] of en) if (PLURAL.test(key)) plurals.set(key.replace(PLURAL, ''), vars);
  assert.ok(plurals.has('errors.verification_code_invalid_left') && plurals.has('permissions.windowHours'));
  for (const [base, vars] of plurals) assert.ok(vars.split(',').includes('count'), `${base} interpolates its count`);
  for (const lang of OTHER_LANGS) {
    const messages = catalogOf(lang);
    const catalog = keysWithVars(messages);
    const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
    const want = new Map<string, string>();
    for (const [key, vars] of en) if (!PLURAL.test(key)) want.set(key, vars);
    for (const [base, vars] of plurals) for (const c of categories) want.set(`${base}_${c}`, vars);
    const missing = [...want.keys()].filter((k) => !catalog.has(k));
    const extra = [...catalog.keys()].filter((k) => !want.has(k));
    const wrongVars = [...want]
      .filter(([k, v]) => catalog.has(k) && catalog.get(k) !== v)
      .map(([k, v]) => `${k}: {${catalog.get(k)}} instead of {${v}}`);
    assert.deepEqual({ missing, extra, wrongVars }, { missing: [], extra: [], wrongVars: [] }, lang);
    const empty = [...catalog.keys()].filter((k) => !lookup(messages, k)?.trim());
    assert.deepEqual(empty, [], `${lang}: no empty message`);
  }
});

test('every page string is translated: only brand names, codes and words shared with English stay English', () => {
  const same = new Set(['common.brand', 'common.pageTitle', 'common.inCurrency', 'agents.credentialIssued']);
  for (const lang of OTHER_LANGS) {
    const catalog = catalogOf(lang);
    const untranslated = [...keysWithVars(EN)]
      .map(([k]) => k)
      .filter((k) => !k.startsWith('mail.') && !same.has(k) && lookup(catalog, k) === lookup(EN, k));
    // A few words are the same in both languages (e.g. German "Status", French "Actions"): at most a handful.
    assert.ok(untranslated.length <= 6, `${lang}: ${untranslated.join(', ')}`);
  }
});

test(`${verifies('SPEC-1-six-languages')}all six languages are offered on the pages, and plurals follow each language’s rules`, () => {
  const c = loadCatalogs();
  assert.deepEqual(c.langs, [...LANGS]);
  const left = (lang: string, count: number) => c.translator(lang)('errors.verification_code_invalid_left', { count });
  assert.equal(left('de', 1), 'Der Code ist nicht korrekt. Sie haben noch 1 Versuch.');
  assert.equal(left('de', 2), 'Der Code ist nicht korrekt. Sie haben noch 2 Versuche.');
  assert.equal(left('fr', 0), 'Le code est incorrect. Il vous reste 0 essai.', 'French counts 0 as singular');
  assert.equal(
    left('pt-BR', 0),
    'O código não está correto. Você tem mais 0 tentativa.',
    'so does Brazilian Portuguese',
  );
  assert.equal(left('es', 0), 'El código no es correcto. Te quedan 0 intentos.', 'Spanish does not');
  assert.equal(left('hu', 3), 'A kód nem megfelelő. Még 3 próbálkozása van.');
  assert.equal(c.translator('es')('permissions.windowHours', { count: 1_000_000 }), '1000000 horas', 'the "many" form');
  assert.equal(c.translator('en')('permissions.windowHours', { count: 1 }), '1 hour');
  assert.equal((c.messages('hu').language as Messages).name, 'Magyar');
});

test('a row button’s accessible name contains its visible label, in every language (WCAG 2.5.3 label in name)', () => {
  const pairs = [
    ['agents.pause', 'agents.pauseNamed'],
    ['agents.resume', 'agents.resumeNamed'],
    ['agents.delete', 'agents.deleteNamed'],
    ['cards.changeCap', 'cards.changeCapNamed'],
    ['permissions.revoke', 'permissions.revokeNamed'],
  ];
  const c = loadCatalogs();
  for (const lang of LANGS) {
    const t = c.translator(lang);
    for (const [label, named] of pairs) {
      const visible = t(label!).toLocaleLowerCase(lang);
      const name = t(named!, { name: 'Concert helper', agent: 'Concert helper', card: 'Visa 4242' }).toLocaleLowerCase(
        lang,
      );
      assert.ok(name.includes(visible), `${lang}: "${name}" contains "${visible}"`);
    }
  }
});
