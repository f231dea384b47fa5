import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadCatalogs, type Messages } from '../../src/i18n/i18n.ts';
import { TOOLS } from '../../src/tools/index.ts';

const EN = JSON.parse(readFileSync('src/i18n/locales/en.json', 'utf8')) as Messages;

function lookup(messages: Messages, key: string): string | undefined {
  let node: string | Messages | undefined = messages;
  for (const part of key.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  return typeof node === 'string' ? node : undefined;
}

test('a language becomes available by adding its catalog file; missing keys fall back to English', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-locales-'));
  try {
    writeFileSync(join(dir, 'en.json'), JSON.stringify({ language: { name: 'English' }, a: { hello: 'Hello {{name}}', only: 'English only' } }));
    writeFileSync(join(dir, 'de.json'), JSON.stringify({ language: { name: 'Deutsch' }, a: { hello: 'Hallo {{name}}' } }));
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
    assert.deepEqual(c.messages('de'), { language: { name: 'Deutsch' }, a: { hello: 'Hallo {{name}}', only: 'English only' } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every message key the pages use exists in the English catalog', () => {
  const files = [
    ...readdirSync('src/buyer-pages').filter((f) => f.endsWith('.ts')).map((f) => join('src/buyer-pages', f)),
    ...readdirSync('src/buyer-pages/assets').filter((f) => f.endsWith('.js')).map((f) => join('src/buyer-pages/assets', f)),
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
  const codes = new Set<string>(['unauthenticated', 'forbidden', 'rate_limited', 'invalid_input', 'internal_error', 'unavailable']);
  for (const tool of TOOLS) if (tool.area === 'buyer') for (const code of tool.errors) codes.add(code);
  assert.deepEqual([...codes].filter((c) => !lookup(EN, `errors.${c}`)), []);
});

/** Every dotted key of a catalog section, with the `{{variables}}` its string interpolates. */
function keysWithVars(messages: Messages, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(messages)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (typeof v === 'string') out.set(key, [...v.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort().join(','));
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
    assert.notEqual(c.mailTranslator(lang)('mail.code.subject'), lookup(EN, 'mail.code.subject'), `${lang} e-mail is translated`);
  }
  assert.equal(c.mailTranslator('de')('mail.signIn.bodyForShop', { shop: 'Arena', link: 'L', minutes: 15 }).split('\n')[0], 'Öffnen Sie diesen Link, um sich bei Arena anzumelden:');
});
