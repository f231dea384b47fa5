/**
 * Apple Wallet passes (.pkpass) with `passkit-generator`: an event ticket whose QR code is the ticket's signed code,
 * signed (PKCS#7, detached, over manifest.json) with the merchant's pass-type certificate and key and Apple's WWDR
 * certificate. The icons are made here: a plain square in the pass's colour.
 */
import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';

/**
 * passkit-generator (and its node-forge and joi, some hundred modules) is loaded on the first pass, not at start
 * (docs/performance.md, "Start time"); its CommonJS build, so that `buildApplePass` stays synchronous.
 */
let passkit: typeof import('passkit-generator') | undefined;
const loadPasskit = () => (passkit ??= createRequire(import.meta.url)('passkit-generator') as typeof passkit)!;

export interface AppleWalletKey {
  passTypeIdentifier: string;
  teamIdentifier: string;
  organizationName: string;
  signerCertificate: string;
  signerKey: string;
  signerKeyPassphrase?: string | undefined;
  wwdrCertificate: string;
}

export interface AppleTicket {
  id: string;
  code: string;
  event: string;
  /** The event's time, already formatted in its time zone. */
  when: string;
  eventStartsAt: Date;
  tier: string;
  attendeeName: string | null;
  venue: string | null;
  orderId: string;
  /** Field labels in the buyer's language. */
  labels: { event: string; when: string; venue: string; tier: string; attendee: string; ticketId: string };
}

/** The MIME type of a pass. */
export const PKPASS_TYPE = 'application/vnd.apple.pkpass';

/** A square PNG of one colour (RGB), `size` pixels a side. */
function squarePng(size: number, rgb: readonly [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgb).flat())]);
  const pixels = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const COLOUR = [31, 41, 55] as const;
let icons: { icon: Buffer; icon2x: Buffer } | undefined;

/** The .pkpass of one ticket, signed with the merchant's certificate. */
export function buildApplePass(key: AppleWalletKey, t: AppleTicket): Buffer {
  icons ??= { icon: squarePng(29, COLOUR), icon2x: squarePng(58, COLOUR) };
  const pass = new (loadPasskit().PKPass)(
    { 'icon.png': icons.icon, 'icon@2x.png': icons.icon2x },
    {
      wwdr: key.wwdrCertificate,
      signerCert: key.signerCertificate,
      signerKey: key.signerKey,
      ...(key.signerKeyPassphrase ? { signerKeyPassphrase: key.signerKeyPassphrase } : {}),
    },
    {
      formatVersion: 1,
      passTypeIdentifier: key.passTypeIdentifier,
      teamIdentifier: key.teamIdentifier,
      organizationName: key.organizationName,
      description: `${t.event}: ${t.tier}`,
      serialNumber: t.id,
      foregroundColor: 'rgb(255, 255, 255)',
      backgroundColor: `rgb(${COLOUR.join(', ')})`,
      labelColor: 'rgb(209, 213, 219)',
    },
  );
  pass.type = 'eventTicket';
  pass.primaryFields.push({ key: 'event', label: t.labels.event, value: t.event });
  pass.secondaryFields.push({ key: 'when', label: t.labels.when, value: t.when });
  pass.auxiliaryFields.push({ key: 'tier', label: t.labels.tier, value: t.tier });
  if (t.attendeeName) pass.auxiliaryFields.push({ key: 'attendee', label: t.labels.attendee, value: t.attendeeName });
  if (t.venue) pass.secondaryFields.push({ key: 'venue', label: t.labels.venue, value: t.venue });
  pass.backFields.push({ key: 'ticket', label: t.labels.ticketId, value: t.id });
  pass.setRelevantDate(t.eventStartsAt);
  pass.setBarcodes({ message: t.code, format: 'PKBarcodeFormatQR', messageEncoding: 'iso-8859-1', altText: t.id });
  return pass.getAsBuffer();
}
