/** get_waiting_list_entry: an entry's state, place in line and offer. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { getEntry } from '../../domain/purchase/waiting-list.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { WaitingListEntryOut } from './waiting-list-schemas.ts';

export const getWaitingListEntry = defineTool({
  name: 'get_waiting_list_entry',
  title: 'Get a waiting-list entry',
  area: 'ticketing',
  description:
    'An entry’s state and place in line. When `state` is `offered`, places are held for you: `confirm` ' +
    '`offer.reservationId` before `offer.expiresAt`, or the offer passes to the next in line.',
  input: z.strictObject({ id: IdRef.describe('The entry (wle_…).') }),
  output: WaitingListEntryOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user', 'buyer', 'agent'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/waiting-list/{id}' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, ctx) {
    return getEntry(ctx, id);
  },
});
