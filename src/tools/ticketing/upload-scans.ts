/** upload_scans: an offline scanner's scans, applied later; the earliest scan of each ticket wins. */
import { z } from 'zod';
import { uploadScans as apply } from '../../domain/check-in/check-in.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { DeviceIn, EventIdIn, ScanOut } from './door-schemas.ts';

export const uploadScans = defineTool({
  name: 'upload_scans',
  title: 'Upload offline scans',
  area: 'ticketing',
  description:
    'Uploads an offline scanner’s (`device`) scans at event `id`, each `{ code, scannedAt }` (up to 500). Per ' +
    'ticket the earliest known scan wins. Each scan is answered in order (admitted, already_checked_in, ' +
    'ticket_void, invalid_ticket_code, ticket_wrong_event); the same upload again gives the same answers. A scan ' +
    'time out of range refuses the whole upload (scan_time_out_of_range).',
  input: z.strictObject({
    id: EventIdIn,
    device: DeviceIn,
    scans: z
      .array(
        z.strictObject({
          code: z.string().min(1).max(2000).describe('The scanned ticket code, as read from the QR code.'),
          scannedAt: z.iso.datetime({ offset: true }).max(40).describe('When it was scanned, RFC 3339.'),
        }),
      )
      .min(1)
      .max(500)
      .describe('Scans made offline, 1 to 500, each a code and when it was scanned.'),
  }),
  output: z.object({ eventId: z.string(), device: z.string(), results: z.array(ScanOut) }),
  errors: ['not_found', 'insufficient_scope', 'scan_time_out_of_range'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/ticketing/events/{id}/scans' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler({ id, device, scans }, ctx) {
    return apply(ctx, id, device, scans);
  },
});
