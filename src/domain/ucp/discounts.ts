/**
 * UCP's discount extension (2026-04-08 discount.json) over ACP sessions' discount codes (docs/discount-codes.md):
 * `discounts.codes` in create and update, `discounts { codes, applied }` in the checkout; a rejected code is a warning
 * message (`discount_code_…`, path `$.discounts.codes[i]`), as the ACP session already says it.
 */
import { z } from 'zod';
import type { AcpCheckoutSessionOut } from '../acp/session-schema.ts';
import { UCP_CHECKOUT, UCP_VERSION } from './protocol.ts';

/** The capability name the profile declares. */
export const UCP_DISCOUNT = 'dev.ucp.shopping.discount';

/** The profile's discount capability: it extends checkout (carts are not served). */
export const discountCapability = () => ({
  version: UCP_VERSION,
  extends: [UCP_CHECKOUT],
  spec: `https://ucp.dev/${UCP_VERSION}/specification/discount`,
  schema: `https://ucp.dev/${UCP_VERSION}/schemas/shopping/discount.json`,
});

/** The request's `discounts`: the codes replace earlier ones; an empty list clears them. */
export const UcpDiscountsRequest = z
  .strictObject({
    codes: z
      .array(z.string().max(40))
      .max(10)
      .describe('Discount codes (case-insensitive); one applies per session; [] clears.'),
  })
  .describe('UCP discount extension: the codes to apply.');

/** The checkout's `discounts`. */
export const UcpDiscountsOut = z.object({
  codes: z.array(z.string().max(40)).max(10),
  applied: z
    .array(
      z.object({
        code: z.string().max(40),
        title: z.string().max(100),
        amount: z.number().int(),
        method: z.literal('across'),
        allocations: z.array(z.object({ path: z.string().max(100), amount: z.number().int() })).max(50),
      }),
    )
    .max(1),
});

/** The UCP `discounts` of an ACP session view, or undefined when the session has none. */
export function ucpDiscounts(v: AcpCheckoutSessionOut): z.infer<typeof UcpDiscountsOut> | undefined {
  const d = v.discounts;
  if (!d) return undefined;
  return {
    codes: d.codes,
    applied: d.applied.map((a) => ({
      code: a.code,
      title: a.coupon.name,
      amount: a.amount,
      method: a.method,
      allocations: a.allocations,
    })),
  };
}
