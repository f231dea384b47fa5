/** The six buyer languages (spec §1) and the one rule that picks a language from a list of candidates. */

export const LANGS = ['en', 'de', 'es', 'fr', 'hu', 'pt-BR'] as const;
export type Lang = (typeof LANGS)[number];

/**
 * The first supported language among the candidates, most preferred first (an explicit `lang`, then the
 * buyer's own choice, then the browser's languages). `de-AT` matches `de`, `pt` matches `pt-BR`; default `en`.
 */
export function resolveLang(candidates: readonly (string | null | undefined)[]): Lang {
  return matchLang(candidates, LANGS, 'en');
}

/** The first of `langs` matching a candidate (exact tag, else same primary subtag), else `fallback`. */
export function matchLang<L extends string>(
  candidates: readonly (string | null | undefined)[],
  langs: readonly L[],
  fallback: L,
): L {
  for (const c of candidates) {
    if (!c) continue;
    const exact = langs.find((l) => l.toLowerCase() === c.toLowerCase());
    if (exact) return exact;
    const primary = c.split('-')[0]!.toLowerCase();
    const partial = langs.find((l) => l.split('-')[0]!.toLowerCase() === primary);
    if (partial) return partial;
  }
  return fallback;
}

/** Whether `value` is one of the six language tags (used to validate `lang` inputs). */
export function isLang(value: string): value is Lang {
  return (LANGS as readonly string[]).includes(value);
}
