/** check_in: scans a ticket code at the door. */
import { z } from 'zod';
import { checkIn as scan } from '../../domain/check-in/check-in.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DeviceIn, EventIdIn } from './door-schemas.ts';
import { TicketOut } from './schemas.ts';

export const checkIn = defineTool({
  name: 'check_in',
  title: 'Check a ticket in',
  area: 'ticketing',
  description:
    'Scans a ticket at the door of event `id`: `code` is its signedCode (the QR code) or opaque code. The first ' +
    'scan admits (`result: admitted`). Refusals: `already_checked_in` (details: the first scan), `ticket_void` ' +
    '(refunded), `invalid_ticket_code` (forged, unknown or another organization’s), `ticket_wrong_event`. ' +
    'Merchants (merchant:write).',
  input: z.strictObject({
    id: EventIdIn,
    code: z.string().min(1).max(2000).describe('The scanned ticket code, as read from the QR code.'),
    device: DeviceIn,
  }),
  output: z.object({ result: z.literal('admitted'), ticket: TicketOut }),
  errors: [
    'not_found',
    'already_checked_in',
    'ticket_void',
    'invalid_ticket_code',
    'ticket_wrong_event',
    'insufficient_scope',
  ],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/ticketing/events/{id}/check-ins' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler({ id, code, device }, ctx) {
    return scan(ctx, id, code, device);
  },
});
