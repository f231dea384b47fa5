/** create_event: an event in one of the caller's shops (merchant:write). */
import { z } from 'zod';
import { requireShop } from '../../orchestrator/access.ts';
import { ToolError } from '../../orchestrator/errors.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { Event } from '../../storage/entities/catalog.ts';
import { newId } from '../../storage/ids.ts';
import { DateTime, EventOut } from '../schemas.ts';
import { eventOut } from '../serialize.ts';

export const createEvent = defineTool({
  name: 'create_event',
  title: 'Create an event',
  area: 'integration',
  description: 'Creates an event (a show, match or festival day) in a shop. Tiers and pools are attached to it afterwards.',
  input: z.strictObject({
    merchantId: z.string().min(1),
    title: z.string().trim().min(1).max(300),
    venue: z.string().trim().min(1).max(300).optional(),
    startsAt: DateTime,
    endsAt: DateTime.optional(),
  }),
  output: EventOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/integration/events', status: 201 },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  async handler(input, { em, principal, clock }) {
    await requireShop(em, principal, input.merchantId);
    if (input.endsAt && new Date(input.endsAt) <= new Date(input.startsAt)) {
      throw new ToolError('invalid_input', 'endsAt must be after startsAt.', { field: 'endsAt' });
    }
    const event = em.create(Event, {
      id: newId('event'),
      shopId: input.merchantId,
      title: input.title,
      venue: input.venue ?? null,
      startsAt: new Date(input.startsAt),
      endsAt: input.endsAt ? new Date(input.endsAt) : null,
      createdAt: clock.now(),
    });
    await em.flush();
    return eventOut(event);
  },
});
