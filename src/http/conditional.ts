/**
 * HTTP caching of public reads: a strong ETag of the JSON body, Cache-Control, and 304 for a matching If-None-Match.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { canonicalJson } from '../kernel/canonical-json.ts';

/** A strong entity tag: the SHA-256 of the body's canonical JSON, base64url. */
export function entityTag(body: unknown): string {
  return `"${createHash('sha256').update(canonicalJson(body)).digest('base64url')}"`;
}

/** RFC 9110 §13.1.2: `*`, or any listed tag equal to ours under weak comparison (a `W/` prefix is ignored). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * Sets the caching headers of a cacheable tool's answer; answers 304 and returns true when the client's copy is
 * current. An error answer is never stored by caches, so a shop made discoverable (or deleted) shows at once.
 */
export function answerCacheable(ctx: Context, cache: { maxAgeSeconds: number }, ok: boolean, body: unknown): boolean {
  if (!ok) {
    ctx.set('Cache-Control', 'no-store');
    return false;
  }
  const etag = entityTag(body);
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', `public, max-age=${cache.maxAgeSeconds}`);
  if ((ctx.method === 'GET' || ctx.method === 'HEAD') && ifNoneMatchHits(ctx.get('if-none-match') || undefined, etag)) {
    ctx.status = 304;
    ctx.body = null;
    return true;
  }
  return false;
}
