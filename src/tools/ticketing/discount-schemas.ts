/** The optional discount fields of the quote and reservation outputs (absent without a discount code). */
import { z } from 'zod';

export const DiscountOut = {
  discountCodeId: z.string().optional().describe('The discount code applied (dsc_…); absent without a code.'),
  discountCode: z.string().optional().describe('The code’s text as applied (upper case).'),
  discountMinor: z
    .number()
    .int()
    .optional()
    .describe('Taken off subtotalMinor by the code, before fees; totalMinor is already net of it.'),
};

/** A discount code as typed: 3–40 letters, digits, `-` or `_`, compared case-insensitively. */
export const DiscountCodeText = z
  .string()
  .trim()
  .min(3)
  .max(40)
  .regex(/^[A-Za-z0-9_-]+$/)
  .describe('A discount code: 3-40 letters, digits, - or _; case-insensitive.');

/** The quote's optional discount inputs. */
export const DiscountIn = {
  discountCode: DiscountCodeText.optional().describe(
    'A discount code of the shop; refused with discount_code_invalid (details.reason) when it cannot be used.',
  ),
  buyerEmail: z
    .email()
    .max(254)
    .optional()
    .describe('The payer’s e-mail, for a code’s per-buyer limit when the purchase has no buyer.'),
};
