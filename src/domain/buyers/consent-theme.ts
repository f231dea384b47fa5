/**
 * The consent view's theme (spec §2.3): the partner passes a palette `{ background, surface, text, accent,
 * accentText?, font? }`; the view derives its secondary text and dividers from it with readable contrast (WCAG 2.x
 * AA: 4.5:1 for text, 3:1 for dividers and input borders). Every text sits on `surface` (the view's panel; `background`
 * is only the backdrop around it), so contrasts are checked against `surface`. Colours the partner chose are kept
 * when they are readable and replaced by black or white (whichever reads better; one of them always reaches 4.58:1)
 * when they are not. Pure: no I/O, no imports.
 */

export interface ThemeInput {
  background: string;
  surface: string;
  text: string;
  accent: string;
  accentText?: string | undefined;
  font?: string | undefined;
}

/** The colours the view's stylesheet uses (all `#rrggbb`), and the font family when one was given. */
export interface DerivedTheme {
  background: string;
  surface: string;
  text: string;
  secondaryText: string;
  divider: string;
  accent: string;
  accentText: string;
  /** The accent as a text or focus colour on the surface (links, focus ring): the accent when readable, else `text`. */
  link: string;
  /** Error and success text on the surface: the default red or green that reads best, else `text`. */
  danger: string;
  ok: string;
  /** The focus ring on the surface (3:1): the accent when it reaches that, else `text`. */
  focus: string;
  font: string | null;
}

export const TEXT_CONTRAST = 4.5;
export const DIVIDER_CONTRAST = 3;

const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;
/** A font family name: letters, digits, spaces and hyphens (it goes into a stylesheet, so nothing else). */
const FONT = /^[\p{L}\p{N} -]{1,60}$/u;

type Rgb = [number, number, number];

function parseHex(hex: string): Rgb {
  let h = hex.slice(1).toLowerCase();
  if (h.length === 3)
    h = h
      .split('')
      .map((c) => c + c)
      .join('');
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as Rgb;
}

function toHex(rgb: Rgb): string {
  return `#${rgb
    .map((v) =>
      Math.round(Math.min(255, Math.max(0, v)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
}

/** WCAG relative luminance of an sRGB colour. */
export function luminance(hex: string): number {
  const [r, g, b] = parseHex(hex).map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as Rgb;
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two colours (1 to 21). */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** Black or white, whichever contrasts more with `on`. */
function bestMono(on: string): string {
  return contrast('#000000', on) >= contrast('#ffffff', on) ? '#000000' : '#ffffff';
}

/** `colour` when it reaches `ratio` on `on`, else black or white. */
function readable(colour: string, on: string, ratio: number): string {
  return contrast(colour, on) >= ratio ? colour : bestMono(on);
}

/**
 * The softest mix of `from` toward `on` that still reaches `ratio` on `on` (t = 0 is `from` itself, which the
 * caller guarantees is readable). Steps down from the softest candidate, so the answer is checked, never assumed.
 */
function softened(from: string, on: string, ratio: number, maxMix: number): string {
  const a = parseHex(from);
  const b = parseHex(on);
  for (let t = maxMix; t > 0; t -= 0.02) {
    const mixed = toHex(a.map((v, i) => v + (b[i]! - v) * t) as Rgb);
    if (contrast(mixed, on) >= ratio) return mixed;
  }
  return toHex(a);
}

/** The first of `candidates` that reads best on `on` when it reaches `ratio`, else `fallback`. */
function bestOf(candidates: readonly string[], on: string, ratio: number, fallback: string): string {
  const best = [...candidates].sort((a, b) => contrast(b, on) - contrast(a, on))[0]!;
  return contrast(best, on) >= ratio ? best : fallback;
}

/** Why a theme is refused: the field and what is wrong with it; null when the theme is well formed. */
export function themeProblem(input: Record<string, unknown>): { field: string; message: string } | null {
  const allowed = new Set(['background', 'surface', 'text', 'accent', 'accentText', 'font']);
  for (const k of Object.keys(input)) if (!allowed.has(k)) return { field: k, message: `unknown theme field ${k}` };
  for (const k of ['background', 'surface', 'text', 'accent'] as const) {
    if (typeof input[k] !== 'string' || !HEX.test(input[k]))
      return { field: k, message: `${k} must be a CSS hex colour (#rgb or #rrggbb)` };
  }
  if (input.accentText !== undefined && (typeof input.accentText !== 'string' || !HEX.test(input.accentText))) {
    return { field: 'accentText', message: 'accentText must be a CSS hex colour (#rgb or #rrggbb)' };
  }
  if (input.font !== undefined && (typeof input.font !== 'string' || !FONT.test(input.font))) {
    return { field: 'font', message: 'font must be a family name (letters, digits, spaces, hyphens)' };
  }
  return null;
}

/** Derives every colour the view uses from a well-formed theme (check it with `themeProblem` first). */
export function deriveTheme(input: ThemeInput): DerivedTheme {
  const surface = toHex(parseHex(input.surface));
  const background = toHex(parseHex(input.background));
  const text = readable(toHex(parseHex(input.text)), surface, TEXT_CONTRAST);
  const accent = toHex(parseHex(input.accent));
  const accentText = readable(
    input.accentText ? toHex(parseHex(input.accentText)) : bestMono(accent),
    accent,
    TEXT_CONTRAST,
  );
  return {
    background,
    surface,
    text,
    secondaryText: softened(text, surface, TEXT_CONTRAST, 0.6),
    divider: softened(text, surface, DIVIDER_CONTRAST, 0.8),
    accent,
    accentText,
    link: contrast(accent, surface) >= TEXT_CONTRAST ? accent : text,
    danger: bestOf(['#b42318', '#ff8a80'], surface, TEXT_CONTRAST, text),
    ok: bestOf(['#146c2e', '#7ee2a0'], surface, TEXT_CONTRAST, text),
    focus: contrast(accent, surface) >= DIVIDER_CONTRAST ? accent : text,
    font: input.font ?? null,
  };
}

/**
 * The theme as CSS custom properties on `:root`, named as the buyer pages' stylesheet names them (`--bg` is the
 * surface every text sits on; `--page-bg` the partner's backdrop around the view's panel).
 */
export function themeCss(t: DerivedTheme): string {
  const vars = [
    `--page-bg: ${t.background}`,
    `--bg: ${t.surface}`,
    `--panel: ${t.surface}`,
    `--fg: ${t.text}`,
    `--muted: ${t.secondaryText}`,
    `--line: ${t.divider}`,
    `--accent: ${t.accent}`,
    `--accent-fg: ${t.accentText}`,
    `--link: ${t.link}`,
    `--danger: ${t.danger}`,
    `--ok: ${t.ok}`,
    `--focus: ${t.focus}`,
  ];
  if (t.font) vars.push(`--font: "${t.font}", system-ui, sans-serif`);
  return `:root { color-scheme: ${luminance(t.surface) < 0.18 ? 'dark' : 'light'}; ${vars.join('; ')}; }\n`;
}
