/** update_event: change an event's title, venue, times or time zone. */
import { z } from 'zod';
import { updateEvent as changeEvent } from '../../domain/catalog/catalog-changes.ts';
import { eventOut } from '../../domain/catalog/serialize.ts';
import { TimeZoneIn } from '../../kernel/event-time.ts';
import { DateTime, IdRef } from '../../kernel/wire.ts';
import { EventOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const updateEvent = defineTool({
  name: 'update_event',
  title: 'Change an event',
  area: 'integration',
  description:
    'Changes an event’s `title`, `venue` (null clears it), `startsAt`, `endsAt` (null clears it) or `timeZone` (an IANA name); fields left out ' +
    'keep their value, and the event must still end after it starts. A cancelled event cannot be changed ' +
    '(event_cancelled). Emits the `event.updated` webhook event. Requires merchant:write (console: the owner).',
  input: z.strictObject({
    id: IdRef.describe('The event id (evt_…).'),
    title: z.string().trim().min(1).max(200).optional().describe('The new title.'),
    venue: z.string().trim().min(1).max(200).nullable().optional().describe('The new venue; null clears it.'),
    startsAt: DateTime.optional(),
    endsAt: DateTime.nullable().optional().describe('When it ends (RFC 3339); null clears it.'),
    timeZone: TimeZoneIn.optional(),
  }),
  output: EventOut,
  errors: ['not_found', 'event_cancelled', 'unknown_time_zone'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'PATCH', path: '/v1/integration/events/{id}' },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id, ...changes }, ctx) {
    return eventOut(await changeEvent(ctx, id, changes));
  },
});
