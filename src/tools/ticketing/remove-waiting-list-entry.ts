/** remove_waiting_list_entry: the merchant takes an entry off a waiting list. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { endEntry } from '../../domain/purchase/waiting-list.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { WaitingListEntryOut } from './waiting-list-schemas.ts';

export const removeWaitingListEntry = defineTool({
  name: 'remove_waiting_list_entry',
  title: 'Remove a waiting-list entry',
  area: 'ticketing',
  description:
    'Takes an entry off its waiting list (state `removed`); an open offer’s held places go to the next in line. ' +
    'Removing again returns the entry unchanged. `payment_in_flight` while the offer is being paid.',
  input: z.strictObject({ id: IdRef.describe('The entry (wle_…).') }),
  output: WaitingListEntryOut,
  errors: ['not_found', 'payment_in_flight', 'insufficient_scope'],
  // An owner's act, as set_waiting_list: an integrator (and a key it made) reads the list but takes no one off it.
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'DELETE', path: '/v1/integration/waiting-list/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id }, ctx) {
    return endEntry(ctx, id, 'removed');
  },
});
