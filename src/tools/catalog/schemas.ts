/** Wire schemas of catalog objects (shops, pools, events, tiers), shared by the catalog and integration tools. */
import { z } from 'zod';
import { AttendeeForm } from '../ticketing/attendee-schemas.ts';

export const ShopOut = z.object({
  id: z.string(),
  organizationId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  currency: z.string(),
  discoverable: z.boolean(),
  embedOrigin: z
    .string()
    .describe('The embed-origin setting as the spec writes it: the origins separated by spaces ("" when none).'),
  embedOrigins: z.array(z.string()).describe('The same origins, normalised, as a list.'),
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
  retiredAt: z.string().nullable().describe('When the tier was retired (no longer sold), or null.'),
  createdAt: z.string(),
  attendeeForm: AttendeeForm.optional().describe('What the tier asks per ticket (absent: nothing).'),
});

export const EventOut = z.object({
  id: z.string(),
  merchantId: z.string(),
  title: z.string(),
  venue: z.string().nullable(),
  startsAt: z.string(),
  endsAt: z.string().nullable(),
  timeZone: z.string().describe('The IANA time zone buyers see the event’s times in (UTC unless set).'),
  cancelledAt: z.string().nullable().describe('When the event was cancelled, or null.'),
  createdAt: z.string(),
});
