/** list_discount_codes: a shop's live discount codes with their use counts, a page at a time. */
import { z } from 'zod';
import { Cursor, IdRef } from '../../kernel/wire.ts';
import { discountCodeOut, listDiscountCodes as list } from '../../domain/catalog/discount-codes.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DiscountCodeOut } from './discount-code-schemas.ts';

export const listDiscountCodes = defineTool({
  name: 'list_discount_codes',
  title: 'List discount codes',
  area: 'integration',
  description:
    'Lists a shop’s discount codes (deleted ones left out) with `uses` so far, in id order, up to `limit` ' +
    '(default 50) per page; pass `nextCursor` as `cursor` to continue. Requires merchant:read.',
  input: z.strictObject({
    merchantId: IdRef.describe('The shop (merchant) id, e.g. shop_…'),
    limit: z.coerce.number().int().min(1).max(200).optional().describe('Page size, 1 to 200 (default 50).'),
    cursor: Cursor.optional().describe('`nextCursor` of the previous page.'),
  }),
  output: z.object({ codes: z.array(DiscountCodeOut).max(200), nextCursor: z.string().optional() }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/integration/discount-codes' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ merchantId, limit = 50, cursor }, ctx) {
    const page = await list(ctx, { merchantId, limit, cursor });
    return { codes: page.codes.map(discountCodeOut), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  },
});
