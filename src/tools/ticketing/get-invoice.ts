/** get_invoice: an order's receipt, invoice and credit notes, each with a short-lived PDF link. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { DOCUMENT_LINK_TTL_MS, orderDocuments } from '../../domain/purchase/invoices.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DocumentOut } from './invoice-schemas.ts';

export const getInvoice = defineTool({
  name: 'get_invoice',
  title: 'Get an order’s receipt and invoices',
  area: 'ticketing',
  description:
    'Lists order `orderId`’s documents: its receipt, and when its shop invoices, its invoice and a credit note per ' +
    'refund, each with `downloadUrl`: a PDF in the buyer’s language, no credential, for ' +
    `${DOCUMENT_LINK_TTL_MS / 60_000} ` +
    'minutes. Merchants see their organization’s orders, a buyer session its own. Needs merchant:read.',
  input: z.strictObject({ orderId: IdRef.describe('The order (ord_…).') }),
  output: z.object({
    orderId: z.string(),
    documents: z
      .array(DocumentOut.extend({ downloadUrl: z.string(), expiresAt: z.string().describe('RFC 3339 date-time.') }))
      .max(1001),
  }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user', 'buyer'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/orders/{orderId}/invoices' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ orderId }, { em, principal, clock, services }) {
    return orderDocuments(em, principal, orderId, clock.now(), services.publicUrl());
  },
});
