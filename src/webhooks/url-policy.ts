/**
 * Which URLs a webhook may point at: `https://` anywhere public, plain `http://` only to the local
 * machine (so a developer or a test can run a receiver on localhost). Private-network IP literals and
 * URLs carrying credentials are refused too, so a subscription cannot aim the dispatcher at internal services.
 */
import { isIP } from 'node:net';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '::1']);

export type UrlRefusal = 'invalid' | 'scheme' | 'credentials' | 'private_address';

/** Why a URL is refused, or undefined when it is acceptable. */
export function refuseWebhookUrl(raw: string): UrlRefusal | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'invalid';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'scheme';
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!host) return 'invalid';
  if (url.username || url.password) return 'credentials';
  if (url.protocol === 'http:') return LOOPBACK_HOSTS.has(host) ? undefined : 'scheme';
  if (!LOOPBACK_HOSTS.has(host) && isPrivateAddress(host)) return 'private_address';
  return undefined;
}

/** The explanation sent with an `invalid_webhook_url` error. */
export const URL_REFUSAL_MESSAGES: Record<UrlRefusal, string> = {
  invalid: 'The webhook URL is not a valid absolute URL.',
  scheme: 'Webhook URLs must use https:// (http:// is accepted only for localhost and 127.0.0.1).',
  credentials: 'Webhook URLs must not carry a user name or password.',
  private_address: 'Webhook URLs must not point at a private, link-local or unspecified IP address.',
};

function isPrivateAddress(host: string): boolean {
  const kind = isIP(host);
  if (kind === 4) return isPrivateV4(host);
  if (kind === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host);
    if (mapped) return isPrivateV4(mapped[1]!);
    return host === '::' || /^f[cd][0-9a-f]{0,2}:/.test(host) || /^fe[89ab][0-9a-f]?:/.test(host);
  }
  return false;
}

function isPrivateV4(host: string): boolean {
  const [a = 0, b = 0] = host.split('.').map(Number);
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168)
  );
}
