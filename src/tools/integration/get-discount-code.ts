/** get_discount_code: one discount code of the caller's shops, with its use count. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { discountCodeOut, requireDiscountCode } from '../../domain/catalog/discount-codes.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DiscountCodeOut } from './discount-code-schemas.ts';

export const getDiscountCode = defineTool({
  name: 'get_discount_code',
  title: 'Get a discount code',
  area: 'integration',
  description: 'Returns one discount code (dsc_…) with `uses` so far. Requires merchant:read.',
  input: z.strictObject({ id: IdRef.describe('The discount code id (dsc_…).') }),
  output: DiscountCodeOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/integration/discount-codes/{id}' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, ctx) {
    return discountCodeOut(await requireDiscountCode(ctx, id));
  },
});
