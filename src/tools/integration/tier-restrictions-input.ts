/** The wire form of a tier's six restriction fields (spec §4.2), shared by create_tier and update_tier. */
import { z } from 'zod';
import { CardScheme, CountryCode, DateTime } from '../../kernel/wire.ts';

export const TierRestrictionsIn = {
  onSaleStart: DateTime.nullable().optional(),
  onSaleEnd: DateTime.nullable().optional(),
  maxQtyPerPurchase: z.number().int().min(1).max(1000).nullable().optional(),
  sellable: z.boolean().optional(),
  allowedGeos: z.array(CountryCode).max(250).optional(),
  allowedSchemes: z.array(CardScheme).max(7).optional(),
};
