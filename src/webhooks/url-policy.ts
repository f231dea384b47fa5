/**
 * Which URLs a webhook may point at, and which addresses a delivery may connect to. Only public unicast addresses
 * (`ipaddr.js` classifies every form: IPv4, IPv6, IPv4-mapped, NAT64, 6to4, numeric shorthands the URL parser
 * normalises; the IPv4-compatible `::a.b.c.d` block, which it calls unicast, is refused here); loopback only with the
 * development setting `WEBHOOK_ALLOW_LOOPBACK`, and plain `http://` only to loopback then. A host name is checked
 * twice: names local by definition (`localhost`, `*.localhost`, `*.local`, `*.internal`) are refused at subscription,
 * and every name is resolved at delivery by `guardedLookup`, which refuses the connection unless every address it
 * resolves to is allowed — so DNS rebinding or a name pointing inside is caught where it matters.
 */
import { lookup, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';

export type UrlRefusal = 'invalid' | 'scheme' | 'credentials' | 'private_address';

export interface AddressPolicy {
  /** Development only: allow loopback targets (and plain http:// to them). */
  allowLoopback: boolean;
}

const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.localdomain', '.home.arpa'];

/**
 * The IPv4-compatible IPv6 block `::/96` (`::a.b.c.d`, deprecated by RFC 4291 §2.5.5.1), which `ipaddr.js` calls
 * plain unicast: `[::127.0.0.1]` reaches 127.0.0.1 on some stacks. The mapped (`::ffff:0:0/96`), translated, NAT64
 * (`64:ff9b::/96`, `64:ff9b:1::/48`), 6to4 (`2002::/16`) and Teredo blocks are ranges of their own, refused whatever
 * they embed.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/** Whether a connection to this IP address is allowed; false for anything that does not parse. */
export function isAllowedAddress(address: string, policy: AddressPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.process(address);
  const range = ip.range();
  if (policy.allowLoopback && range === 'loopback') return true;
  if (ip.kind() === 'ipv6' && ip.match(IPV4_COMPATIBLE)) return false;
  return range === 'unicast';
}

/** The host of a URL without IPv6 brackets or a trailing dot, lower-cased. */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
}

function isLoopbackHost(host: string): boolean {
  if (ipaddr.isValid(host)) return ipaddr.process(host).range() === 'loopback';
  return host === 'localhost' || host.endsWith('.localhost');
}

/** Why a URL is refused, or undefined when it is acceptable. */
export function refuseWebhookUrl(raw: string, policy: AddressPolicy): UrlRefusal | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'invalid';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'scheme';
  const host = hostOf(url);
  if (!host) return 'invalid';
  if (url.username || url.password) return 'credentials';
  const loopback = isLoopbackHost(host);
  if (loopback) return policy.allowLoopback ? undefined : 'private_address';
  if (url.protocol === 'http:') return 'scheme';
  if (ipaddr.isValid(host)) return isAllowedAddress(host, policy) ? undefined : 'private_address';
  if (LOCAL_SUFFIXES.some((s) => host.endsWith(s)) || !host.includes('.')) return 'private_address';
  return undefined;
}

/** The explanation sent with an `invalid_webhook_url` error. */
export const URL_REFUSAL_MESSAGES: Record<UrlRefusal, string> = {
  invalid: 'The webhook URL is not a valid absolute URL.',
  scheme: 'Webhook URLs must use https://.',
  credentials: 'Webhook URLs must not carry a user name or password.',
  private_address:
    'Webhook URLs must point at a public address (not loopback, private, link-local, local names or other reserved ranges).',
};

/** The error a refused connection fails with; the delivery log reports its class only. */
export const ADDRESS_REFUSED = 'EADDRNOTPUBLIC';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `dns.lookup` for socket connects that fails unless every resolved address is allowed. */
export function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void => {
    lookup(hostname, { ...options, all: true } as { all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (!addresses.length || !addresses.every((a) => isAllowedAddress(a.address, policy))) {
        return callback(Object.assign(new Error('The address is not public.'), { code: ADDRESS_REFUSED }), []);
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
