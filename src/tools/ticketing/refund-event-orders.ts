/**
 * refund_event_orders: refunds every paid order of an event as a background job; get_event_refunds reports its
 * progress.
 */
import { z } from 'zod';
import { startEventRefundsFor, eventRefundsFor } from '../../domain/purchase/event-refund-access.ts';
import { defineTool } from '../../orchestrator/tool.ts';
import { EventIdIn } from './door-schemas.ts';

export const EventRefundsOut = z.object({
  eventId: z.string(),
  state: z.enum(['running', 'done']),
  reason: z.string(),
  returnToPool: z.boolean(),
  total: z.number().int().describe('Paid orders of the event when the job started.'),
  refunded: z.number().int(),
  failed: z
    .number()
    .int()
    .describe('Orders the provider refused to refund: they stay paid (see each order’s refunds).'),
  skipped: z.number().int().describe('Orders already fully refunded when their turn came.'),
  pending: z.number().int(),
  startedAt: z.string(),
  finishedAt: z.string().nullable(),
});

export const refundEventOrders = defineTool({
  name: 'refund_event_orders',
  title: 'Refund every order of an event',
  area: 'ticketing',
  description:
    'Starts a background job that refunds every paid order of event `id` in full (e.g. when the event is cancelled), ' +
    'each exactly once, with `reason`; it survives restarts. Answers 202 with the progress; poll get_event_refunds. ' +
    'Starting it again returns the same job. Merchants (API key with merchant:write, or a console owner).',
  input: z.strictObject({
    id: EventIdIn,
    reason: z.string().trim().min(1).max(500).describe('Why the orders are refunded (1 to 500 characters).'),
    returnToPool: z
      .boolean()
      .optional()
      .describe('Put the places back on sale (default false: a cancelled event sells nothing).'),
  }),
  output: EventRefundsOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/ticketing/events/{id}/refunds', status: 202 },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  async handler({ id, reason, returnToPool = false }, ctx) {
    return startEventRefundsFor(ctx, { eventId: id, reason, returnToPool });
  },
});

export const getEventRefunds = defineTool({
  name: 'get_event_refunds',
  title: 'Get the progress of an event’s refunds',
  area: 'ticketing',
  description:
    'The progress of the job refunding every order of event `id`: how many orders are refunded, failed, skipped and pending. 404 when there is none.',
  input: z.strictObject({ id: EventIdIn }),
  output: EventRefundsOut,
  errors: ['not_found', 'insufficient_scope'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:read'] },
  http: { method: 'GET', path: '/v1/ticketing/events/{id}/refunds' },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  async handler({ id }, ctx) {
    return eventRefundsFor(ctx, id);
  },
});
