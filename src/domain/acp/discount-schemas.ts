/** ACP's discount extension on the wire (2026-04-17 DiscountsRequest and DiscountsResponse), as zod. */
import { z } from 'zod';

/** The request's `discounts` (ACP DiscountsRequest). */
export const AcpDiscountsRequest = z
  .strictObject({
    codes: z
      .array(z.string().max(40))
      .max(10)
      .describe('Discount codes to apply (case-insensitive); this merchant applies one. An empty list clears.'),
  })
  .describe('ACP discount extension: the codes to apply; they replace earlier ones.');

/** ACP's DiscountErrorCode values this server reports. */
export const DISCOUNT_ERROR_CODES = [
  'discount_code_expired',
  'discount_code_invalid',
  'discount_code_combination_disallowed',
  'discount_code_user_ineligible',
  'discount_code_usage_limit_reached',
] as const;

/** The session's `discounts` (ACP DiscountsResponse: codes echoed, the applied discount, the rejected codes). */
export const AcpDiscounts = z.object({
  codes: z.array(z.string().max(40)).max(10),
  applied: z
    .array(
      z.object({
        id: z.string().max(100),
        code: z.string().max(40),
        coupon: z.object({
          id: z.string().max(100),
          name: z.string().max(100),
          percent_off: z.number().int().optional(),
          amount_off: z.number().int().optional(),
          currency: z.string().max(3).optional(),
        }),
        amount: z.number().int(),
        method: z.literal('across'),
        allocations: z.array(z.object({ path: z.string().max(100), amount: z.number().int() })).max(50),
      }),
    )
    .max(1),
  rejected: z
    .array(z.object({ code: z.string().max(40), reason: z.enum(DISCOUNT_ERROR_CODES), message: z.string().max(300) }))
    .max(10),
});
export type AcpDiscounts = z.infer<typeof AcpDiscounts>;
