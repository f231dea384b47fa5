/** Wire schemas of verifiable tickets and check-in: the published keys, the voided list, scans and their results. */
import { z } from 'zod';
import { TICKET_STATES } from '../../domain/purchase/purchase-view.ts';
import { SCAN_RESULTS } from '../../domain/check-in/check-in.ts';

const Time = z.string().describe('RFC 3339 date-time.');

/** An Ed25519 key's JWK: `OKP`, `Ed25519`, 32 bytes in base64url (43 characters), a `tkk_` id, `EdDSA`, `sig`. */
export const Jwk = z
  .object({
    kty: z.string().max(3),
    crv: z.string().max(7),
    x: z.string().max(43),
    kid: z.string().max(100),
    alg: z.string().max(5),
    use: z.string().max(3),
  })
  .describe('An Ed25519 public key (RFC 8037 OKP JWK).');

export const JwksOut = z.object({
  keys: z
    .array(Jwk)
    .describe('Every ticket-signing key ever used, oldest first; retired ones stay so older codes still verify.'),
});

export const EventIdIn = z.string().min(1).max(100).describe('The event (evt_…).');
export const DeviceIn = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .describe('The scanning device’s name or id, recorded with the check-in.');

export const ScanOut = z.object({
  index: z.number().int().describe('Position of the scan in the upload.'),
  result: z.enum(SCAN_RESULTS),
  ticketId: z.string().nullable(),
  scannedAt: Time,
  checkedInAt: Time.nullable().describe('The check-in that holds: the earliest scan of the ticket.'),
  checkedInDevice: z.string().nullable(),
});

export const CheckInListOut = z.object({
  eventId: z.string(),
  generatedAt: Time,
  keys: z.array(Jwk),
  tickets: z.array(
    z.object({
      ticketId: z.string(),
      tierId: z.string(),
      state: z.enum(TICKET_STATES),
      checkedInAt: Time.nullable(),
      checkedInDevice: z.string().nullable(),
      attendeeName: z.string().max(200).optional().describe('The ticket’s attendee, when the purchase gave one.'),
    }),
  ),
});
