/** create_event: an event in one of the caller's shops (merchant:write). */
import { z } from 'zod';
import { createEvent as createShopEvent } from '../../domain/catalog/catalog.ts';
import { eventOut } from '../../domain/catalog/serialize.ts';
import { TimeZoneIn } from '../../kernel/event-time.ts';
import { DateTime, IdRef } from '../../kernel/wire.ts';
import { EventOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const createEvent = defineTool({
  name: 'create_event',
  title: 'Create an event',
  area: 'integration',
  description:
    'Creates an event (a show, match or festival day) in a shop, with the IANA `timeZone` buyers see its times in (default UTC). Tiers and pools are ' +
    'attached to it afterwards.',
  input: z.strictObject({
    merchantId: IdRef.describe('The shop (shop_…) the event is sold in.'),
    title: z.string().trim().min(1).max(300).describe('The event’s public title.'),
    venue: z.string().trim().min(1).max(300).optional().describe('Where it takes place.'),
    startsAt: DateTime,
    endsAt: DateTime.optional(),
    timeZone: TimeZoneIn.optional(),
  }),
  output: EventOut,
  errors: ['not_found', 'insufficient_scope', 'unknown_time_zone'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/integration/events', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  async handler(input, ctx) {
    return eventOut(await createShopEvent(ctx, input));
  },
});
