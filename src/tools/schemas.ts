/** Wire schemas shared by several tools: plain JSON (minor units, RFC 3339 strings), described for models. */
import { z } from 'zod';

export const Id = (prefix: string) =>
  z.string().regex(new RegExp(`^${prefix}_[0-9a-z]{10,40}$`), `must be an identifier starting with ${prefix}_`);

export const Currency = z.string().regex(/^[A-Z]{3}$/, 'must be an upper-case ISO 4217 code').describe('ISO 4217 currency, upper case.');
export const Minor = z.number().int().min(0).max(100_000_000).describe('Amount in minor units (cents).');
export const DateTime = z.iso.datetime({ offset: true }).describe('RFC 3339 date-time.');
export const CountryCode = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code, upper case');
export const CARD_SCHEMES = ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'unionpay', 'diners'] as const;
export const CardScheme = z.enum(CARD_SCHEMES);

export const ShopOut = z.object({
  id: z.string(),
  organizationId: z.string(),
  name: z.string(),
  currency: z.string(),
  discoverable: z.boolean(),
  embedOrigins: z.array(z.string()),
  holdMinutes: z.number().int(),
  feePerTicketMinor: z.number().int(),
  paymentProvider: z.string(),
  createdAt: z.string(),
});

/** Spec §2.1: the Pool object; `availableCount` is the live oversell arbiter. */
export const PoolOut = z.looseObject({
  id: z.string(),
  merchantId: z.string(),
  eventId: z.string().optional(),
  title: z.string().optional(),
  capacity: z.number().int(),
  availableCount: z.number().int(),
  authority: z.string().optional(),
  createdAt: z.string().optional(),
});

export const TierOut = z.object({
  id: z.string(),
  merchantId: z.string(),
  eventId: z.string(),
  poolId: z.string(),
  name: z.string(),
  priceMinor: z.number().int(),
  currency: z.string(),
  onSaleStart: z.string().nullable(),
  onSaleEnd: z.string().nullable(),
  maxQtyPerPurchase: z.number().int().nullable(),
  sellable: z.boolean(),
  allowedGeos: z.array(z.string()),
  allowedSchemes: z.array(z.string()),
  availableCount: z.number().int().describe('Live places left in the tier’s pool.'),
  createdAt: z.string(),
});

export const EventOut = z.object({
  id: z.string(),
  merchantId: z.string(),
  title: z.string(),
  venue: z.string().nullable(),
  startsAt: z.string(),
  endsAt: z.string().nullable(),
  createdAt: z.string(),
});
