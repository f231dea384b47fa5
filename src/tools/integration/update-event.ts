/** update_event: change an event's title, venue or times. */
import { z } from 'zod';
import { updateEvent as changeEvent } from '../../domain/catalog/catalog-changes.ts';
import { eventOut } from '../../domain/catalog/serialize.ts';
import { DateTime, IdRef } from '../../kernel/wire.ts';
import { EventOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const updateEvent = defineTool({
  name: 'update_event',
  title: 'Change an event',
  area: 'integration',
  description:
    'Changes an event’s `title`, `venue` (null clears it), `startsAt` or `endsAt` (null clears it); fields left out ' +
    'keep their value, and the event must still end after it starts. A cancelled event cannot be changed ' +
    '(event_cancelled). Emits the `event.updated` webhook event. Requires merchant:write (console: the owner).',
  input: z.strictObject({
    id: IdRef.describe('The event id (evt_…).'),
    title: z.string().trim().min(1).max(200).optional().describe('The new title.'),
    venue: z.string().trim().min(1).max(200).nullable().optional().describe('The new venue; null clears it.'),
    startsAt: DateTime.optional(),
    endsAt: DateTime.nullable().optional().describe('When it ends (RFC 3339); null clears it.'),
  }),
  output: EventOut,
  errors: ['not_found', 'event_cancelled'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'PATCH', path: '/v1/integration/events/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id, ...changes }, ctx) {
    return eventOut(await changeEvent(ctx, id, changes));
  },
});
