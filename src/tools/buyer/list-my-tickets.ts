/**
 * list_my_tickets: the signed-in buyer's orders with their tickets, each with its QR code and door state ("My
 * tickets").
 */
import { z } from 'zod';
import { listBuyerTickets } from '../../domain/purchase/buyer-tickets.ts';
import { ORDER_STATES } from '../../domain/purchase/purchase-view.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { ticketQrDataUrl } from '../../tickets/ticket-qr.ts';
import { OrderLinesOut } from './order-lines-schema.ts';

const Time = z.string().describe('RFC 3339');

const BuyerTicketOut = z.object({
  id: z.string(),
  status: z
    .enum(['valid', 'checked_in', 'void'])
    .describe('valid: admits; checked_in: admitted already; void: refunded, no longer admits.'),
  qrContent: z
    .string()
    .describe('What the QR code encodes: the verifiable signed ticket code (get_ticket_keys verifies it offline).'),
  qrImage: z
    .string()
    .nullable()
    .describe('The QR code as a data:image/svg+xml URL; null for a void ticket (it no longer admits).'),
  voidedAt: Time.nullable(),
  tierName: z.string().max(200).optional().describe('The ticket’s tier, when its order has tickets of several tiers.'),
  attendeeName: z.string().max(200).optional().describe('The ticket’s attendee, when the purchase gave one.'),
  checkedInAt: Time.nullable(),
});

export const listMyTicketsTool = defineTool({
  name: 'list_my_tickets',
  title: 'List my tickets',
  area: 'buyer',
  description:
    'The buyer’s orders (its own and its agents’, across shops; a bounded session: in its shop), newest first, each ' +
    'with the shop, event and tier names and every ticket with its state (valid, checked_in or void) and its QR code ' +
    '(an SVG data URL encoding the signed ticket code). Pass `nextCursor` as `cursor` for the next page.',
  input: z.strictObject({
    limit: z.coerce.number().int().min(1).max(50).optional().describe('Orders per page, 1 to 50 (default 20).'),
    cursor: z.string().min(1).max(100).optional().describe('The previous page’s `nextCursor`, to continue the list.'),
  }),
  output: z.object({
    orders: z.array(
      z.object({
        orderId: z.string(),
        merchantId: z.string(),
        shopName: z.string(),
        eventId: z.string(),
        eventTitle: z.string(),
        eventVenue: z.string().nullable(),
        eventStartsAt: Time,
        eventTimeZone: z
          .string()
          .max(64)
          .describe('The event’s IANA time zone: show `eventStartsAt` there, naming it.'),
        tierName: z.string(),
        lines: OrderLinesOut,
        state: z.enum(ORDER_STATES),
        createdAt: Time,
        tickets: z.array(BuyerTicketOut),
      }),
    ),
    nextCursor: z.string().optional(),
  }),
  errors: [],
  auth: { principals: ['buyer'] },
  http: { method: 'GET', path: '/v1/buyer/tickets' },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ limit = 20, cursor }, { em, principal }) {
    const page = await listBuyerTickets(em, principal, { limit, cursor });
    const orders = await Promise.all(
      page.orders.map(async (o) => ({
        ...o,
        tickets: await Promise.all(
          o.tickets.map(async (t) => ({
            ...t,
            qrImage: t.status === 'void' ? null : await ticketQrDataUrl(t.qrContent),
          })),
        ),
      })),
    );
    return page.nextCursor ? { orders, nextCursor: page.nextCursor } : { orders };
  },
});
