/**
 * Fetching a small JSON document another party publishes (a UCP platform profile) through the webhooks' address
 * policy: public addresses only, every resolved address checked at connect (loopback, over plain http too, only with
 * the development setting WEBHOOK_ALLOW_LOOPBACK); bounded in time and size; no redirects.
 */
import ipaddr from 'ipaddr.js';
import { loadUndici } from './undici.ts';
import { guardedLookup, hostOf, isAllowedAddress, refuseWebhookUrl, type AddressPolicy } from './url-policy.ts';

/** Why a document could not be had: its URL is refused, the fetch failed, or it is not JSON. */
export type PublicJsonFailure = 'refused' | 'unreachable' | 'malformed';

export const PUBLIC_JSON_MAX_BYTES = 64 * 1024;
export const PUBLIC_JSON_TIMEOUT_MS = 2500;

/** The parsed document at `url` (with its Cache-Control header, if any), or why not. */
export async function fetchPublicJson(
  url: string,
  policy: AddressPolicy,
): Promise<{ ok: true; json: unknown; cacheControl?: string } | { ok: false; failure: PublicJsonFailure }> {
  if (refuseWebhookUrl(url, policy)) return { ok: false, failure: 'refused' };
  const host = hostOf(new URL(url));
  if (ipaddr.isValid(host) && !isAllowedAddress(host, policy)) return { ok: false, failure: 'refused' };
  const { Agent, fetch } = await loadUndici();
  const dispatcher = new Agent({ connect: { lookup: guardedLookup(policy) } });
  try {
    const res = await fetch(url, {
      dispatcher,
      redirect: 'manual',
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(PUBLIC_JSON_TIMEOUT_MS),
    });
    if (res.status !== 200 || !res.body) return { ok: false, failure: 'unreachable' };
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > PUBLIC_JSON_MAX_BYTES) return { ok: false, failure: 'malformed' };
      chunks.push(chunk as Buffer);
    }
    try {
      const json: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      return {
        ok: true,
        json,
        ...(res.headers.has('cache-control') ? { cacheControl: res.headers.get('cache-control')! } : {}),
      };
    } catch {
      return { ok: false, failure: 'malformed' };
    }
  } catch {
    return { ok: false, failure: 'unreachable' };
  } finally {
    void dispatcher.close();
  }
}
