/** list_voided_tickets: the signed list of an event's voided tickets, in full or since a time. */
import { z } from 'zod';
import { VOID_LIST_PAGE, VOID_LIST_SIGNED_MAX, voidedTicketList } from '../../domain/check-in/voided-list.ts';
import { Cursor } from '../../kernel/wire.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { EventIdIn } from './door-schemas.ts';

export const listVoidedTickets = defineTool({
  name: 'list_voided_tickets',
  title: 'List an event’s voided tickets (signed)',
  area: 'ticketing',
  description:
    'The event’s voided (refunded) tickets, oldest first, with `signed`: a compact JWS (EdDSA) over the list, ' +
    'verifiable with get_ticket_keys. Pass `since` (the previous answer’s `generatedAt`) for only those voided at ' +
    `or after it. ${VOID_LIST_PAGE} a page: pass \`nextCursor\` as \`cursor\` for the next (the payload's \`next\`). ` +
    'Merchants of the event’s organization (merchant:read).',
  input: z.strictObject({
    id: EventIdIn,
    since: z.iso.datetime({ offset: true }).max(40).optional().describe('RFC 3339.'),
    cursor: Cursor.optional(),
  }),
  output: z.object({
    eventId: z.string(),
    since: z.string().nullable(),
    generatedAt: z.string(),
    tickets: z.array(z.object({ ticketId: z.string(), voidedAt: z.string() })),
    signed: z.string().max(VOID_LIST_SIGNED_MAX),
    nextCursor: z.string().optional().describe('Present when more voided tickets follow: pass it as `cursor`.'),
  }),
  errors: ['not_found', 'invalid_input', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/events/{id}/voided-tickets' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id, since, cursor }, ctx) {
    return voidedTicketList(ctx, id, since ? new Date(since) : undefined, cursor);
  },
});
