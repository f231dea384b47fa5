/** The wire schemas of an order's documents (receipt, invoices, credit notes). */
import { z } from 'zod';
import { DOCUMENT_KINDS } from '../../domain/purchase/invoices.ts';

/** One document of an order. */
export const DocumentOut = z.object({
  kind: z.enum(DOCUMENT_KINDS),
  invoiceId: z.string().nullable().describe('null for the receipt.'),
  number: z.string().max(40).nullable().describe('`<prefix>-<n>`, gapless per shop; null for the receipt.'),
  orderId: z.string(),
  refundId: z.string().nullable().describe('A credit note’s refund.'),
  totalMinor: z.number().int().describe('The order’s total; a credit note’s refunded amount.'),
  currency: z.string().max(3),
  createdAt: z.string().describe('RFC 3339 date-time.'),
});
