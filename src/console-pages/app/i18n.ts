/**
 * The console's messages: i18next (the buyer pages' library), fed by /console/assets/i18n/<lang>.json, which the server
 * builds from src/i18n/locales/console/<lang>.json merged over English. Text is always set as text, never as HTML.
 */
import i18next, { type i18n } from 'i18next';
import { LANGS, matchLang } from '../../i18n/langs.ts';

/** The six languages, each named in itself (the language picker's options). */
export const LANG_NAMES: Record<(typeof LANGS)[number], string> = {
  en: 'English',
  de: 'Deutsch',
  es: 'Español',
  fr: 'Français',
  hu: 'Magyar',
  'pt-BR': 'Português (Brasil)',
};
const CHOSEN = 'tessera.console.lang';

let instance: i18n | undefined;

/** The language to start in: the one chosen before on this browser, else the browser's own, else English. */
export function initialLang(): string {
  let chosen: string | null = null;
  try {
    chosen = localStorage.getItem(CHOSEN);
  } catch {
    // Storage may be off; the browser's languages decide then.
  }
  return matchLang([chosen, ...navigator.languages], LANGS, 'en');
}

/** Loads the catalog of `lang` and makes it current (the page's `lang` attribute too); remembers the choice. */
export async function loadMessages(lang: string, remember = false): Promise<void> {
  const res = await fetch(`/console/assets/i18n/${encodeURIComponent(lang)}.json`, { credentials: 'omit' });
  const { lang: served, messages } = (await res.json()) as { lang: string; messages: Record<string, unknown> };
  const next = i18next.createInstance();
  await next.init({
    lng: served,
    fallbackLng: false,
    resources: { [served]: { translation: messages } },
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  instance = next;
  document.documentElement.lang = served;
  if (remember) {
    try {
      localStorage.setItem(CHOSEN, served);
    } catch {
      // Not remembered; the choice holds for this page.
    }
  }
}

/** The message for `key` with `{{var}}` values; `count` picks the plural form. */
export function t(key: string, vars?: Record<string, unknown>): string {
  return instance ? String(instance.t(key, vars ?? {})) : key;
}

/** Whether the catalog has `key`. */
export function has(key: string): boolean {
  return instance ? instance.exists(key) : false;
}

/** The current language (number and date formats follow it). */
export function lang(): string {
  return instance?.language ?? 'en';
}
