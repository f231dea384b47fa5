/** leave_waiting_list: the person leaves the line; an open offer's hold is released and passes on. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { endEntry } from '../../domain/purchase/waiting-list.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { WaitingListEntryOut } from './waiting-list-schemas.ts';

export const leaveWaitingList = defineTool({
  name: 'leave_waiting_list',
  title: 'Leave a waiting list',
  area: 'ticketing',
  description:
    'Takes your entry off the waiting list (state `left`); an open offer’s held places go to the next in line. ' +
    'Leaving again returns the entry unchanged. `payment_in_flight` while the offer is being paid.',
  input: z.strictObject({ id: IdRef.describe('The entry (wle_…).') }),
  output: WaitingListEntryOut,
  errors: ['not_found', 'payment_in_flight', 'insufficient_scope'],
  auth: { principals: ['api_key', 'buyer', 'agent'], scopes: ['merchant:write'] },
  http: { method: 'POST', path: '/v1/ticketing/waiting-list/{id}/leave' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id }, ctx) {
    return endEntry(ctx, id, 'left');
  },
});
