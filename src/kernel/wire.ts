/**
 * Wire primitives every layer may use: identifiers, money in minor units, RFC 3339 times, country and card-scheme
 * codes.
 */
import { z } from 'zod';

export const Id = (prefix: string) =>
  z
    .string()
    .max(prefix.length + 41)
    .regex(new RegExp(`^${prefix}_[0-9a-z]{10,40}$`), `must be an identifier starting with ${prefix}_`);

/**
 * An id a caller names (opaque, e.g. `rsv_…`): bounded, so no request carries more than an id's length where one goes.
 */
export const IdRef = z.string().min(1).max(100);
/** A page's `nextCursor`, sent back as `cursor`. */
export const Cursor = z.string().min(1).max(500).describe('The previous page’s `nextCursor`, to continue the list.');

export const Currency = z
  .string()
  .max(3)
  .regex(/^[A-Z]{3}$/, 'must be an upper-case ISO 4217 code')
  .describe('ISO 4217 currency, upper case.');
export const Minor = z.number().int().min(0).max(100_000_000).describe('Amount in minor units (cents).');
export const DateTime = z.iso.datetime({ offset: true }).max(40).describe('RFC 3339 date-time.');
export const CountryCode = z
  .string()
  .max(2)
  .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code, upper case');
export const CARD_SCHEMES = ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'unionpay', 'diners'] as const;
export const CardScheme = z.enum(CARD_SCHEMES);

/** A time on the wire: an RFC 3339 UTC string (a value typed Date may still arrive as text from a raw row). */
export const iso = (d: Date): string => (d instanceof Date ? d : new Date(d)).toISOString();
export const isoOrNull = (d: Date | null | undefined): string | null => (d ? iso(d) : null);
