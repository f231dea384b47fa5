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
