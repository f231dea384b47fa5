/**
 * The platform profiles UCP negotiation reads, cached by their Cache-Control (overview, "Fetching"): `max-age` is
 * honoured within a floor of 60 s and a ceiling of 24 h, a profile without `max-age` is kept for the floor,
 * `no-store`/`no-cache`/`private` are not kept; failed fetches are not kept. A bounded in-process LRU
 * (1,000 profiles) so unknown platforms cost a fixed footprint.
 */
import type { Clock } from '../../kernel/clock.ts';
import { fetchPublicJson, type PublicJsonFailure } from '../../webhooks/public-json.ts';
import type { AddressPolicy } from '../../webhooks/url-policy.ts';

export const PROFILE_CACHE_MAX_ENTRIES = 1000;
export const PROFILE_TTL_FLOOR_S = 60;
export const PROFILE_TTL_CEILING_S = 24 * 60 * 60;

const cache = new Map<string, { json: unknown; expiresAt: number }>();

/** How long (seconds) a profile served with `cacheControl` may be kept; 0 when it must not be. */
export function profileTtlSeconds(cacheControl: string | undefined): number {
  const directives = (cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache' || d === 'private')) return 0;
  const maxAge = directives.find((d) => /^max-age=\d+$/.test(d));
  const seconds = maxAge ? Number(maxAge.slice('max-age='.length)) : PROFILE_TTL_FLOOR_S;
  return Math.min(PROFILE_TTL_CEILING_S, Math.max(PROFILE_TTL_FLOOR_S, seconds));
}

/** The platform profile at `url`: from the cache while fresh, else fetched (and kept as its Cache-Control allows). */
export async function platformProfileJson(
  url: string,
  policy: AddressPolicy,
  clock: Clock,
): Promise<{ ok: true; json: unknown } | { ok: false; failure: PublicJsonFailure }> {
  const now = clock.now().getTime();
  const hit = cache.get(url);
  if (hit && hit.expiresAt > now) {
    cache.delete(url);
    cache.set(url, hit);
    return { ok: true, json: hit.json };
  }
  cache.delete(url);
  const fetched = await fetchPublicJson(url, policy);
  if (!fetched.ok) return fetched;
  const ttl = profileTtlSeconds(fetched.cacheControl);
  if (ttl > 0) {
    cache.set(url, { json: fetched.json, expiresAt: now + ttl * 1000 });
    if (cache.size > PROFILE_CACHE_MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  }
  return { ok: true, json: fetched.json };
}
