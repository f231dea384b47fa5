/** get_ticket_downloads: links to an order's tickets as a PDF and, when the shop has them on, wallet passes. */
import { z } from 'zod';
import { LANGS } from '../../i18n/langs.ts';
import { IdRef } from '../../kernel/wire.ts';
import { TICKET_LINK_TTL_MS, ticketDownloads } from '../../domain/purchase/ticket-documents.ts';
import { defineTool } from '../../orchestrator/tool.ts';

const Url = z.string().max(4000);

export const getTicketDownloads = defineTool({
  name: 'get_ticket_downloads',
  title: 'Download an order’s tickets',
  area: 'ticketing',
  description:
    `Links to an order’s valid tickets, each working for ${TICKET_LINK_TTL_MS / 60_000} minutes without a credential: ` +
    '`pdf` (one page per ticket with its QR code, in `lang`, default the buyer’s), and per ticket an Apple Wallet pass ' +
    'and a Google Wallet save link when the shop has them on. Buyers see their own orders, merchants their shops’.',
  input: z.strictObject({
    id: IdRef.describe('The order (ord_…).'),
    lang: z.enum(LANGS).optional().describe('The documents’ language; default the buyer’s.'),
  }),
  output: z.object({
    orderId: z.string().max(100),
    lang: z.enum(LANGS),
    expiresAt: z.string().max(40).describe('RFC 3339: when the links stop working.'),
    pdf: z
      .object({ url: Url.describe('GET: the PDF (an attachment).'), filename: z.string().max(120) })
      .optional()
      .describe('Absent when the order has no valid ticket (refunded).'),
    appleWallet: z.boolean().describe('Whether the shop offers Apple Wallet passes.'),
    googleWallet: z.boolean().describe('Whether the shop offers Google Wallet passes.'),
    tickets: z
      .array(
        z.object({
          ticketId: z.string().max(100),
          appleWalletUrl: Url.optional().describe('GET: the .pkpass file.'),
          googleWalletUrl: Url.optional().describe('Opens Google Wallet to save the ticket.'),
        }),
      )
      .max(1000)
      .describe('The valid tickets (void ones are left out).'),
  }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/orders/{id}/downloads' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler(input, { em, principal, services, clock }) {
    return ticketDownloads(em, principal, services, input, clock.now());
  },
});
