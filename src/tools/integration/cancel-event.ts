/** cancel_event: call an event off; its tiers stop selling and its paid orders are refunded by a background job. */
import { z } from 'zod';
import { cancelEventAndRefundOrders } from '../../domain/purchase/event-cancellation.ts';
import { eventOut } from '../../domain/catalog/serialize.ts';
import { EventOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const cancelEvent = defineTool({
  name: 'cancel_event',
  title: 'Cancel an event',
  area: 'integration',
  description:
    'Cancels an event: its tiers can no longer be quoted or reserved (event_cancelled) and it leaves the public ' +
    'shop window and product feed. Holds already made stay until released or expired; tickets sold stay sold. ' +
    'Cancelling twice answers event_cancelled. Every paid order of the event is refunded in full by a background job ' +
    'that survives restarts (progress: get_event_refunds). Emits the `event.cancelled` webhook event with the optional `reason`. ' +
    'Requires merchant:write (console: the owner).',
  input: z.strictObject({
    id: z.string().min(1).describe('The event id (evt_…).'),
    reason: z.string().trim().min(1).max(500).optional().describe('Why, for the webhook event and the records.'),
  }),
  output: EventOut,
  errors: ['not_found', 'event_cancelled'],
  auth: { principals: ['api_key', 'console_user'], scopes: ['merchant:write'], roles: ['owner'] },
  http: { method: 'POST', path: '/v1/integration/events/{id}/cancel' },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  idempotency: 'optional',
  async handler({ id, reason }, ctx) {
    return eventOut(await cancelEventAndRefundOrders(ctx, id, reason));
  },
});
