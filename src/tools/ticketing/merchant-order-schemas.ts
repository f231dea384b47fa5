/** Wire schemas of the merchant's order tools (search, detail, refund preview, resend): the buyer's contact. */
import { z } from 'zod';
import { OrderLinesOut } from '../buyer/order-lines-schema.ts';

/** An order's buyer as merchants see it; null when the order has no buyer address (e.g. an API key's own sale). */
export const BuyerContactOut = z
  .object({
    email: z.string().describe('The buyer’s e-mail address.'),
    name: z.string().nullable().describe('The buyer’s name, when an ACP checkout gave one.'),
  })
  .nullable();

export const OrderRowOut = z.object({
  id: z.string(),
  merchantId: z.string(),
  eventId: z.string(),
  eventTitle: z.string(),
  tierId: z.string(),
  tierName: z.string(),
  quantity: z.number().int(),
  lines: OrderLinesOut,
  totalMinor: z.number().int(),
  refundedMinor: z.number().int(),
  currency: z.string(),
  state: z.enum(['completed', 'partially_refunded', 'refunded']),
  createdAt: z.string().describe('RFC 3339 date-time.'),
  buyer: BuyerContactOut,
  checkedIn: z.number().int().describe('How many of its tickets were checked in.'),
});
