/**
 * Finds English catalog strings in a page rendered in another language. A page's visible and announced text
 * comes in segments (text nodes, and the attributes that name or describe things); a segment leaks English when
 * it is an English page message (its `{{variables}}` matching anything) that the language's own catalog
 * translates differently. Words both languages share ("Status", "Agent") are not leaks.
 */
import { readFileSync } from 'node:fs';
import { Parser } from 'htmlparser2';
import type { Messages } from '../../src/i18n/i18n.ts';

/** The attributes whose values a reader sees or hears. */
export const TEXT_ATTRIBUTES = ['aria-label', 'title', 'alt', 'placeholder', 'data-final'] as const;

function leaves(messages: Messages, prefix = ''): [string, string][] {
  return Object.entries(messages).flatMap(([k, v]): [string, string][] =>
    typeof v === 'string' ? [[`${prefix}${k}`, v]] : leaves(v, `${prefix}${k}.`),
  );
}

const catalog = (lang: string) =>
  JSON.parse(readFileSync(new URL(`../../src/i18n/locales/${lang}.json`, import.meta.url), 'utf8')) as Messages;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export interface LeakFinder {
  /** The segments that are English messages, with the catalog key each one matched. */
  find(segments: readonly string[]): string[];
}

/** A finder of English page messages in segments of a page rendered in `lang`. */
export function englishLeakFinder(lang: string): LeakFinder {
  const own = new Set(leaves(catalog(lang)).map(([, v]) => v.trim()));
  const patterns = leaves(catalog('en'))
    .filter(([key, value]) => !key.startsWith('mail.') && value.trim() && !own.has(value.trim()))
    .map(([key, value]) => ({
      key,
      re: new RegExp(
        `^${value
          .trim()
          .split(/\{\{\w+\}\}/)
          .map(escape)
          .join('.+?')}$`,
        's',
      ),
    }));
  return {
    find(segments) {
      const out: string[] = [];
      for (const s of segments) {
        const text = s.replace(/\s+/g, ' ').trim();
        if (!text) continue;
        const hit = patterns.find((p) => p.re.test(text));
        if (hit) out.push(`${hit.key}: "${text}"`);
      }
      return out;
    },
  };
}

/**
 * The segments of a server-rendered document: its text nodes and text attributes, except inside elements
 * marked with another language (the language menu names each language in itself) and scripts.
 */
export function htmlSegments(html: string, pageLang: string): string[] {
  const segments: string[] = [];
  const stack: { name: string; other: boolean }[] = [];
  const inOther = () => stack.some((e) => e.other || e.name === 'script' || e.name === 'style');
  let text = '';
  // The parser may hand one text node over in pieces (around entities): a segment runs from tag to tag.
  const flush = () => {
    if (text && !inOther()) segments.push(text);
    text = '';
  };
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        flush();
        const other = attrs.lang !== undefined && attrs.lang !== pageLang && name !== 'html';
        stack.push({ name, other });
        if (inOther()) return;
        for (const a of TEXT_ATTRIBUTES) if (attrs[a]) segments.push(attrs[a]);
      },
      onclosetag() {
        flush();
        stack.pop();
      },
      ontext(piece) {
        text += piece;
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  flush();
  return segments;
}
