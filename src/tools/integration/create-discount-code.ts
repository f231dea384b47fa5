/** create_discount_code: a shop's percent or fixed-amount code, for some tiers or all, with limits and a window. */
import { z } from 'zod';
import { createDiscountCode as create, discountCodeOut } from '../../domain/catalog/discount-codes.ts';
import { Currency, IdRef, Minor } from '../../kernel/wire.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DiscountCodeText } from '../ticketing/discount-schemas.ts';
import { DISCOUNT_KINDS } from '../../domain/catalog/discount-codes.ts';
import { DiscountCodeFieldsIn, DiscountCodeOut } from './discount-code-schemas.ts';

export const createDiscountCode = defineTool({
  name: 'create_discount_code',
  title: 'Create a discount code',
  area: 'integration',
  description:
    'Creates a discount code buyers pass to `quote` as `discountCode`: `percent` (percentOff 1-100) or `fixed` ' +
    '(amountOffMinor, shop currency), for `tierIds` or every tier, with optional maxUses, maxUsesPerBuyer and a ' +
    'startsAt/endsAt window. Codes are unique per shop, case-insensitive (discount_code_taken).',
  input: z.strictObject({
    merchantId: IdRef.describe('The shop (merchant) id, e.g. shop_…'),
    code: DiscountCodeText,
    kind: z
      .enum(DISCOUNT_KINDS)
      .describe('percent: `percentOff` of each applicable line; fixed: `amountOffMinor` off.'),
    percentOff: z.number().int().min(1).max(100).optional().describe('For kind percent: 1-100.'),
    amountOffMinor: Minor.optional().describe('For kind fixed: the amount off, in minor units (more than 0).'),
    currency: Currency.optional().describe('For kind fixed: defaults to the shop currency.'),
    ...DiscountCodeFieldsIn,
  }),
  example: { merchantId: 'shop_01jf8k2m9q7r5t', code: 'EARLYBIRD', kind: 'percent', percentOff: 20, maxUses: 100 },
  output: DiscountCodeOut,
  errors: ['not_found', 'insufficient_scope', 'discount_code_taken'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/integration/discount-codes', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  async handler(input, ctx) {
    return discountCodeOut(await create(ctx, input));
  },
});
