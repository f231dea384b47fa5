/** The wire shapes the discount-code tools share: a code as shown, and the fields a merchant may set or change. */
import { z } from 'zod';
import { DateTime, IdRef } from '../../kernel/wire.ts';
import { DISCOUNT_KINDS } from '../../domain/catalog/discount-codes.ts';

const Time = z.string().describe('RFC 3339 date-time.');

export const DiscountCodeOut = z.object({
  id: z.string().describe('dsc_…'),
  merchantId: z.string(),
  code: z.string().describe('The code, upper case; buyers may type it in any case.'),
  kind: z.enum(DISCOUNT_KINDS),
  percentOff: z.number().int().nullable().describe('For kind percent: 1-100.'),
  amountOffMinor: z.number().int().nullable().describe('For kind fixed: the amount off, in minor units.'),
  currency: z.string().nullable().describe('For kind fixed: the shop’s currency.'),
  tierIds: z.array(z.string()).max(100).nullable().describe('The tiers it applies to; null: every tier.'),
  maxUses: z.number().int().nullable(),
  maxUsesPerBuyer: z.number().int().nullable(),
  uses: z.number().int().describe('Uses held by open holds and completed purchases.'),
  startsAt: Time.nullable(),
  endsAt: Time.nullable(),
  refundReturnsUse: z.boolean(),
  disabled: z.boolean(),
  createdAt: Time,
  updatedAt: Time,
});

/** The fields create and update share; on update, null clears a limit, a bound or the tier list. */
export const DiscountCodeFieldsIn = {
  tierIds: z
    .array(IdRef)
    .max(100)
    .nullable()
    .optional()
    .describe('Tiers (tier_…) of the shop it applies to; absent or null: every tier.'),
  maxUses: z.number().int().min(1).max(1_000_000).nullable().optional().describe('Total uses allowed; null: no limit.'),
  maxUsesPerBuyer: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .nullable()
    .optional()
    .describe('Uses per buyer (the buyer account, else the payer e-mail given with the quote); null: no limit.'),
  startsAt: DateTime.nullable().optional().describe('Valid from (RFC 3339); null: at once.'),
  endsAt: DateTime.nullable().optional().describe('Valid until (RFC 3339); null: no end.'),
  refundReturnsUse: z.boolean().optional().describe('Whether a full refund gives the use back (default false).'),
};
