/** list_waiting_list: a tier's or event's waiting list, in line order, for the merchant. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { listWaitingList as list } from '../../domain/purchase/waiting-list-admin.ts';
import { WAITING_LIST_STATES } from '../../domain/purchase/waiting-list-view.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { WaitingListEntryOut } from './waiting-list-schemas.ts';

export const listWaitingList = defineTool({
  name: 'list_waiting_list',
  title: 'List a waiting list',
  area: 'ticketing',
  description:
    'A tier’s (`tierId`), event’s (`eventId`) or, with neither, every waiting list, first joined first, with each entry’s state, place in ' +
    'line while waiting, e-mail and offer. Filter by `state`; continue with `cursor` = `nextCursor`.',
  input: z.strictObject({
    tierId: IdRef.optional().describe('Only this tier’s list (tier_…).'),
    eventId: IdRef.optional().describe('Every tier of this event (evt_…).'),
    state: z.enum(WAITING_LIST_STATES).optional().describe('Only entries in this state.'),
    limit: z.coerce.number().int().min(1).max(100).optional().describe('Page size, 1 to 100 (default 50).'),
    cursor: z.string().min(1).max(200).optional().describe('The previous page’s `nextCursor`.'),
  }),
  output: z.object({ entries: z.array(WaitingListEntryOut).max(100), nextCursor: z.string().max(200).optional() }),
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/integration/waiting-list' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ limit = 50, ...rest }, ctx) {
    return list(ctx, { ...rest, limit });
  },
});
