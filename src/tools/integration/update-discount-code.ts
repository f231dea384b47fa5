/** update_discount_code: disable or enable a code, or change its tiers, limits, window or refund rule. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { discountCodeOut, updateDiscountCode as update } from '../../domain/catalog/discount-codes.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DiscountCodeFieldsIn, DiscountCodeOut } from './discount-code-schemas.ts';

export const updateDiscountCode = defineTool({
  name: 'update_discount_code',
  title: 'Change a discount code',
  area: 'integration',
  description:
    'Changes a discount code: `disabled` (true: no new quote or reserve may use it), tierIds, maxUses, ' +
    'maxUsesPerBuyer, startsAt/endsAt, refundReturnsUse; fields left out keep their value, null clears. The text, ' +
    'kind and amount cannot change. Uses already taken stay. Requires merchant:write.',
  input: z.strictObject({
    id: IdRef.describe('The discount code id (dsc_…).'),
    disabled: z.boolean().optional().describe('true disables the code; false enables it again.'),
    ...DiscountCodeFieldsIn,
  }),
  output: DiscountCodeOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'PATCH', path: '/v1/integration/discount-codes/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id, ...changes }, ctx) {
    return discountCodeOut(await update(ctx, id, changes));
  },
});
