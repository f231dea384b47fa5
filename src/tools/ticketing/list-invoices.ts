/** list_invoices: a shop's invoices and credit notes in number order. */
import { z } from 'zod';
import { Cursor, IdRef } from '../../kernel/wire.ts';
import { listInvoices as list } from '../../domain/purchase/invoices.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DocumentOut } from './invoice-schemas.ts';

export const listInvoices = defineTool({
  name: 'list_invoices',
  title: 'List a shop’s invoices',
  area: 'ticketing',
  description:
    'Lists shop `merchantId`’s invoices and credit notes by number (gapless per shop), up to `limit` (default 100) ' +
    'a page; continue with `cursor`. PDFs: get_invoice with the orderId. Needs merchant:read.',
  input: z.strictObject({
    merchantId: IdRef.describe('The shop (shop_…).'),
    cursor: Cursor.optional(),
    limit: z.number().int().min(1).max(100).optional().describe('At most this many (1-100, default 100).'),
  }),
  output: z.object({
    invoices: z.array(DocumentOut).max(100),
    nextCursor: z.string().optional().describe('Pass as `cursor` for the next page.'),
  }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/invoices' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, { em, principal }) {
    return list(em, principal, input);
  },
});
