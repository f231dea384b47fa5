/** delete_discount_code: removes a code (its text is free again); purchases that used it keep their discount. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { deleteDiscountCode as remove } from '../../domain/catalog/discount-codes.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const deleteDiscountCode = defineTool({
  name: 'delete_discount_code',
  title: 'Delete a discount code',
  area: 'integration',
  description:
    'Deletes a discount code: no new quote or reserve may use it and its text may be used again; purchases that ' +
    'used it keep their discount. Requires merchant:write.',
  input: z.strictObject({ id: IdRef.describe('The discount code id (dsc_…).') }),
  output: z.object({ id: z.string(), deleted: z.boolean() }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'DELETE', path: '/v1/integration/discount-codes/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, ctx) {
    const row = await remove(ctx, id);
    return { id: row.id, deleted: true };
  },
});
