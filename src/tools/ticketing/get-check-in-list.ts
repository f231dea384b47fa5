/** get_check_in_list: what an offline scanner downloads before the doors open. */
import { z } from 'zod';
import { checkInList } from '../../domain/check-in/check-in.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { CheckInListOut, EventIdIn } from './door-schemas.ts';

export const getCheckInList = defineTool({
  name: 'get_check_in_list',
  title: 'Download an event’s check-in list',
  area: 'ticketing',
  description:
    'For an offline scanner: every ticket of event `id` with its state (valid / void) and check-in so far, and the ' +
    'JWKS to verify ticket codes with. Scan offline, then upload the scans with upload_scans. Merchants (merchant:read).',
  input: z.strictObject({ id: EventIdIn }),
  output: CheckInListOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/events/{id}/check-in-list' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, ctx) {
    return checkInList(ctx, id);
  },
});
