/** The wire form of a tier's six restriction fields (spec §4.2), shared by create_tier and update_tier. */
import { z } from 'zod';
import { CardScheme, CountryCode, DateTime } from '../../kernel/wire.ts';

export const TierRestrictionsIn = {
  onSaleStart: DateTime.nullable().optional().describe('When sales open (RFC 3339); null: already open.'),
  onSaleEnd: DateTime.nullable().optional().describe('When sales close (RFC 3339); null: until the event.'),
  maxQtyPerPurchase: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .nullable()
    .optional()
    .describe('Most tickets per purchase; null: no limit.'),
  sellable: z.boolean().optional().describe('false stops sales without retiring the tier (default true).'),
  allowedGeos: z
    .array(CountryCode)
    .max(250)
    .optional()
    .describe('Buyer countries allowed (ISO 3166-1 alpha-2); empty: any.'),
  allowedSchemes: z.array(CardScheme).max(7).optional().describe('Card schemes allowed, lower case; empty: any.'),
};
