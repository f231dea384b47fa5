/**
 * Google Wallet "save" links: a JWT (RS256, signed with the merchant's service-account key, `jose`) carrying one
 * event-ticket object per ticket of the merchant's event-ticket class; `https://pay.google.com/gp/v/save/<jwt>` adds
 * them to the buyer's Google Wallet. The object's barcode is the ticket's signed code.
 */
import { importPKCS8, SignJWT } from 'jose';
import { createPrivateKey } from 'node:crypto';

/** Where a save JWT is opened. */
export const GOOGLE_SAVE_URL = 'https://pay.google.com/gp/v/save/';

export interface GoogleWalletKey {
  issuerId: string;
  classId: string;
  serviceAccountEmail: string;
  privateKey: string;
}

export interface GoogleTicket {
  id: string;
  code: string;
  event: string;
  tier: string;
  attendeeName: string | null;
  venue: string | null;
  eventStartsAt: Date;
}

/** The event-ticket object of one ticket (Google Wallet's REST resource `eventTicketObject`). */
function ticketObject(key: GoogleWalletKey, t: GoogleTicket) {
  return {
    id: `${key.issuerId}.${t.id}`,
    classId: key.classId,
    state: 'ACTIVE',
    ticketNumber: t.id,
    ticketType: { defaultValue: { language: 'en', value: t.tier } },
    ...(t.attendeeName ? { ticketHolderName: t.attendeeName } : {}),
    barcode: { type: 'QR_CODE', value: t.code, alternateText: t.id },
    textModulesData: [
      { id: 'event', header: 'Event', body: t.event },
      ...(t.venue ? [{ id: 'venue', header: 'Venue', body: t.venue }] : []),
    ],
    validTimeInterval: { start: { date: t.eventStartsAt.toISOString() } },
  };
}

/** The save link for `tickets`, signed now with the merchant's key. */
export async function googleWalletSaveUrl(
  key: GoogleWalletKey,
  tickets: readonly GoogleTicket[],
  origin: string,
  now: Date,
): Promise<string> {
  // The key may be PKCS#1 or PKCS#8 PEM; jose imports PKCS#8.
  const pkcs8 = createPrivateKey(key.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  const signingKey = await importPKCS8(pkcs8, 'RS256');
  const jwt = await new SignJWT({
    origins: [origin],
    payload: { eventTicketObjects: tickets.map((t) => ticketObject(key, t)) },
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(key.serviceAccountEmail)
    .setAudience('google')
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .sign(signingKey);
  return `${GOOGLE_SAVE_URL}${jwt}`;
}
