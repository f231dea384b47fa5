/**
 * Prefixed, time-sortable, unguessable identifiers (`shop_…`, `rsv_…`): 48-bit time + 80 random bits, Crockford base32.
 */
import { randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export const ID_PREFIXES = {
  organization: 'org',
  user: 'usr',
  apiKey: 'key',
  shop: 'shop',
  event: 'evt',
  pool: 'pool',
  tier: 'tier',
  quote: 'quo',
  reservation: 'rsv',
  order: 'ord',
  ticket: 'tkt',
  payment: 'pay',
  webhook: 'whk',
  sandboxCharge: 'sch',
  sandboxEvent: 'sbe',
  sandboxRefund: 'srf',
  webhookEvent: 'whe',
  delivery: 'dlv',
  outbox: 'obx',
  buyer: 'byr',
  agent: 'agt',
  permission: 'perm',
  instrument: 'ins',
  session: 'ses',
  mandate: 'mdt',
  checkout: 'cs',
  vaultToken: 'vt',
  mail: 'mail',
  signInLink: 'sil',
  challenge: 'vch',
  cardSetup: 'cset',
  spend: 'spd',
  consoleSignInLink: 'csl',
  invitation: 'inv',
  refund: 'rfd',
  ticketKey: 'tkk',
  orderMail: 'omail',
  exportDownload: 'exd',
  limitRaise: 'lrr',
  webSession: 'wss',
  auditEntry: 'aud',
  discountCode: 'dsc',
  waitingListEntry: 'wle',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

function encode(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += ALPHABET[(value << (5 - bits)) & 31];
  return out;
}

/**
 * Random bytes for identifiers, drawn from the CSPRNG 4 KiB at a time: one `randomBytes` call per identifier cost more
 * than the rest of `newId` (a hot pool's batch makes one per hold). Each byte is used once. Secrets (`randomToken`)
 * take their own bytes.
 */
const ID_RANDOM = new Uint8Array(4096);
let idRandomAt = ID_RANDOM.length;

/** A new identifier of the given kind, e.g. `newId('shop')` → `shop_01jd…`. */
export function newId(kind: IdKind, now: Date = new Date()): string {
  const buf = new Uint8Array(16);
  const t = now.getTime();
  for (let i = 5; i >= 0; i--) buf[5 - i] = Math.floor(t / 2 ** (8 * i)) & 0xff;
  if (idRandomAt + 10 > ID_RANDOM.length) {
    randomFillSync(ID_RANDOM);
    idRandomAt = 0;
  }
  buf.set(ID_RANDOM.subarray(idRandomAt, idRandomAt + 10), 6);
  idRandomAt += 10;
  return `${ID_PREFIXES[kind]}_${encode(buf)}`;
}

/** A random secret string of `bytes` bytes, base32 (for tokens and ticket codes). */
export function randomToken(bytes = 32): string {
  return encode(randomBytes(bytes));
}
