// The page script's message catalog: i18next in the browser, fed by /buyer/i18n/<lang>.json (the same catalogs the
// server renders with).
import i18next from './vendor/i18next.js';

let instance = null;

/** Loads the catalog of `lang` (the page's language) once; later calls for the same language are free. */
export async function loadMessages(lang) {
  if (instance && instance.language === lang) return;
  const res = await fetch(`/buyer/i18n/${encodeURIComponent(lang)}.json`, { credentials: 'omit' });
  const { messages } = await res.json();
  const next = i18next.createInstance();
  await next.init({
    lng: lang,
    fallbackLng: false,
    resources: { [lang]: { translation: messages } },
    interpolation: { escapeValue: false },
    returnNull: false,
  });
  instance = next;
}

/**
 * The message for `key`, with `{{var}}` values; `count` picks the plural form. Text is set with textContent, never as
 * HTML.
 */
export function t(key, vars) {
  return instance ? instance.t(key, vars) : key;
}

/** Whether the catalog has `key`. */
export function has(key) {
  return instance ? instance.exists(key) : false;
}

/** The page's language (for number and date formats). */
export function lang() {
  return instance ? instance.language : document.documentElement.lang || 'en';
}
