/** Texts of the pages' message catalogs, as served (issue #36): the void note reads well, "Set up by" is translated. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from '../support/harness.ts';

const LANGS = ['en', 'de', 'es', 'fr', 'hu', 'pt-BR'];
let h: Harness;
before(async () => {
  h = await startHarness();
});
after(async () => {
  await h?.close();
});

const catalog = async (lang: string) => {
  const res = await fetch(`${h.url}/buyer/i18n/${lang}.json`);
  assert.equal(res.status, 200, lang);
  return (await res.json()).messages;
};

test('issue #36: the void note with a date formatted as the tickets page does never ends a sentence twice ("..")', async () => {
  for (const lang of LANGS) {
    const note: string = (await catalog(lang)).tickets.voidNote;
    // tickets.js: formatDate is Intl's medium date (Hungarian ends it with a period: "2026. nov. 28.").
    const date = new Intl.DateTimeFormat(lang, { dateStyle: 'medium' }).format(new Date('2026-11-28T12:00:00Z'));
    const text = note.replace('{{date}}', date);
    assert.doesNotMatch(text, /\.\s*\./, `${lang}: ${text}`);
  }
});

test('issue #36: "Set up by <shop>" is in every catalog, translated, and the permissions page uses it', async () => {
  const english = (await catalog('en')).permissions.setUpBy;
  assert.equal(english, 'Set up by {{shop}}');
  for (const lang of LANGS.filter((l) => l !== 'en')) {
    const text: string = (await catalog(lang)).permissions.setUpBy;
    assert.match(text, /\{\{shop\}\}/, lang);
    assert.notEqual(text, english, lang);
  }
  const script = await (await fetch(`${h.url}/buyer/assets/permissions.js`)).text();
  assert.match(script, /t\('permissions\.setUpBy'/);
});
