/**
 * Message catalogs (i18next) of the buyer pages and the e-mails: one JSON file per language in ./locales,
 * English the fallback. Every language's file carries the e-mail strings (`mail`); the pages offer a language
 * once its file carries every page section English has.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createInstance, type i18n } from 'i18next';
import { isLang, LANGS, matchLang, type Lang } from './langs.ts';

/** A catalog's messages: nested objects of strings (i18next's JSON v4 format). */
export type Messages = { [key: string]: string | Messages };

/** Translates a dotted key with `{{var}}` interpolation; `count` selects the plural form. */
export type Translate = (key: string, vars?: Record<string, unknown>) => string;

export const DEFAULT_LANG = 'en';
const LOCALES_DIR = fileURLToPath(new URL('./locales/', import.meta.url));

export interface Catalogs {
  /** The languages the pages are offered in (their catalog covers every page section), English first. */
  readonly langs: readonly string[];
  /** The translator of an e-mail in `lang` (any of the six languages; a missing key falls back to English). */
  mailTranslator(lang: Lang): Translate;
  /** The translator for a language (an available one; others fall back to English). */
  translator(lang: string): Translate;
  /** A language's messages merged over English, as the pages' script loads them. */
  messages(lang: string): Messages;
  /** The first available language among the candidates (exact tag, else same primary subtag), else English. */
  resolve(candidates: readonly (string | null | undefined)[]): string;
}

function merge(base: Messages, over: Messages): Messages {
  const out: Messages = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = typeof v === 'object' && typeof b === 'object' ? merge(b, v) : v;
  }
  return out;
}

/** Reads every catalog in the locales directory; only the spec's six buyer languages are accepted. */
export function loadCatalogs(dir: string = LOCALES_DIR): Catalogs {
  const resources: Record<string, { translation: Messages }> = {};
  for (const file of readdirSync(dir)) {
    const lang = file.replace(/\.json$/, '');
    if (lang === file || !isLang(lang)) continue;
    resources[lang] = { translation: JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as Messages };
  }
  const english = resources[DEFAULT_LANG]?.translation;
  if (!english) throw new Error(`The ${DEFAULT_LANG} catalog is missing from ${dir}.`);
  const pageSections = Object.keys(english).filter((k) => k !== 'mail');
  const coversPages = (l: string) => pageSections.every((k) => resources[l]?.translation[k] !== undefined);
  const langs = [DEFAULT_LANG, ...LANGS.filter((l) => l !== DEFAULT_LANG && coversPages(l))];
  const instance: i18n = createInstance();
  void instance.init({
    resources,
    lng: DEFAULT_LANG,
    fallbackLng: DEFAULT_LANG,
    supportedLngs: Object.keys(resources),
    nonExplicitSupportedLngs: false,
    load: 'currentOnly',
    initAsync: false,
    returnNull: false,
    interpolation: { escapeValue: false },
  });
  const translators = new Map<string, Translate>();
  const merged = new Map<string, Messages>();
  const resolve = (candidates: readonly (string | null | undefined)[]): string =>
    matchLang(candidates, langs, DEFAULT_LANG);
  /** One translator per loaded language, made once. */
  const translatorOf = (l: string): Translate => {
    let t = translators.get(l);
    if (!t) {
      const fixed = instance.getFixedT(l);
      t = (key, vars) => String(fixed(key, vars ?? {}));
      translators.set(l, t);
    }
    return t;
  };
  return {
    langs,
    resolve,
    mailTranslator: (lang) => translatorOf(resources[lang] ? lang : DEFAULT_LANG),
    translator: (lang) => translatorOf(resolve([lang])),
    messages(lang) {
      const l = resolve([lang]);
      let m = merged.get(l);
      if (!m) {
        const en = resources[DEFAULT_LANG]!.translation;
        m = l === DEFAULT_LANG ? en : merge(en, resources[l]!.translation);
        merged.set(l, m);
      }
      return m;
    },
  };
}
