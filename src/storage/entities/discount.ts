/** Discount codes (a shop's vouchers) and the uses their purchases hold (docs/discount-codes.md). */
import { defineEntity, p } from '@mikro-orm/core';

export const DISCOUNT_KINDS = ['percent', 'fixed'] as const;
export type DiscountKind = (typeof DISCOUNT_KINDS)[number];

/**
 * A shop's discount code: `code` is stored upper case (unique per shop among live codes); `uses` counts the uses held
 * by live holds and completed purchases (a released hold, or a refund when `refundReturnsUse`, gives its use back).
 */
export const DiscountCode = defineEntity({
  name: 'DiscountCode',
  tableName: 'discount_codes',
  properties: {
    id: p.string().primary(),
    shopId: p.string(),
    organizationId: p.string(),
    code: p.string(),
    kind: p.string().$type<DiscountKind>(),
    percentOff: p.integer().nullable(),
    amountOffMinor: p.integer().nullable(),
    currency: p.string().nullable(),
    /** The tiers it applies to; null: every tier of the shop. */
    tierIds: p.json<string[]>().nullable(),
    maxUses: p.integer().nullable(),
    maxUsesPerBuyer: p.integer().nullable(),
    startsAt: p.datetime().nullable(),
    endsAt: p.datetime().nullable(),
    refundReturnsUse: p.boolean().default(false),
    uses: p.integer().default(0),
    disabledAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type DiscountCodeRow = InstanceType<typeof DiscountCode.class>;
