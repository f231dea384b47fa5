/**
 * The shop's embed-origin setting (spec §2.3, §4.3, §8): at most three bare origins (`scheme://host[:port]`, no
 * path, query, fragment or user info), separated by spaces or by commas (one kind per value). `https` only, except
 * `http` for `localhost`; host names only (no IP literals). Each is normalised as browsers send it in `Origin`:
 * lower case, default port dropped, international names in punycode; duplicates are dropped. Anything else is
 * refused with `400 invalid_embed_origin` naming the entry and the rule it breaks.
 */
import { ToolError } from '../../kernel/errors.ts';

export const MAX_EMBED_ORIGINS = 3;

/** The rules an embed-origin value can break; `details.rule` of the refusal. */
export type EmbedOriginRule =
  | 'empty'
  | 'trailing_separator'
  | 'mixed_separators'
  | 'too_many'
  | 'not_an_origin'
  | 'scheme'
  | 'http_only_for_localhost'
  | 'user_info'
  | 'path'
  | 'query'
  | 'fragment'
  | 'ip_literal'
  | 'host';

function refuse(entry: string, rule: EmbedOriginRule, why: string): ToolError {
  return new ToolError('invalid_embed_origin', `Embed origin ${JSON.stringify(entry)}: ${why}`, {
    field: 'embedOrigin',
    entry,
    rule,
  });
}

/** Splits the setting into entries: by commas when there is one (spaces around them allowed), else by spaces. */
function splitEntries(value: string): string[] {
  const text = value.trim();
  if (text === '') throw refuse(value, 'empty', 'give one to three origins, or null to clear the setting.');
  if (!text.includes(',')) return text.split(/\s+/);
  const parts = text.split(',').map((p) => p.trim());
  parts.forEach((p, i) => {
    if (p === '') {
      throw refuse(
        value,
        'trailing_separator',
        i === parts.length - 1 || i === 0
          ? 'remove the comma at the end or start.'
          : 'remove the empty entry between two commas.',
      );
    }
    if (/\s/.test(p)) throw refuse(p, 'mixed_separators', 'separate origins either by commas or by spaces, not both.');
  });
  return parts;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** One entry, checked and normalised (`https://xn--bcher-kva.example`, `http://localhost:5173`). */
export function normaliseOrigin(entry: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s.exec(entry);
  if (!m) throw refuse(entry, 'not_an_origin', 'write it as scheme://host[:port], for example https://shop.example.');
  const scheme = m[1]!.toLowerCase();
  if (scheme !== 'https' && scheme !== 'http')
    throw refuse(entry, 'scheme', 'only https:// origins (http:// for localhost) may embed.');
  if (!m[2]!.startsWith('//')) throw refuse(entry, 'not_an_origin', 'write it as scheme://host[:port].');
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw refuse(entry, 'not_an_origin', 'write it as scheme://host[:port], for example https://shop.example.');
  }
  const authority = m[2]!.slice(2);
  if (url.username || url.password || authority.includes('@'))
    throw refuse(entry, 'user_info', 'an origin has no user name or password.');
  if (/[?]/.test(authority)) throw refuse(entry, 'query', 'an origin has no query (?…).');
  if (/[#]/.test(authority)) throw refuse(entry, 'fragment', 'an origin has no fragment (#…).');
  if (/[/\\]/.test(authority)) throw refuse(entry, 'path', 'an origin has no path, not even a trailing slash.');
  const host = url.hostname;
  if (host.startsWith('[') || IPV4.test(host)) throw refuse(entry, 'ip_literal', 'use a host name, not an IP address.');
  if (scheme === 'http' && host !== 'localhost')
    throw refuse(entry, 'http_only_for_localhost', 'use https:// (http:// is accepted only for localhost).');
  if (host !== 'localhost' && !DOMAIN.test(host)) throw refuse(entry, 'host', 'the host is not a valid domain name.');
  return url.origin;
}

/** The setting's origins, normalised and without duplicates; `null` clears it. */
export function parseEmbedOrigins(value: string | null): string[] {
  if (value === null) return [];
  const origins = [...new Set(splitEntries(value).map(normaliseOrigin))];
  if (origins.length > MAX_EMBED_ORIGINS) {
    throw refuse(
      value,
      'too_many',
      `at most ${MAX_EMBED_ORIGINS} origins may embed the shop (${origins.length} given).`,
    );
  }
  return origins;
}
