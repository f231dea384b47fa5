/** cancel_event: call an event off; its tiers stop selling and its paid orders are refunded by a background job. */
import { z } from 'zod';
import { IdRef } from '../../kernel/wire.ts';
import { cancelEventAndRefundOrders } from '../../domain/purchase/event-cancellation.ts';
import { eventOut } from '../../domain/catalog/serialize.ts';
import { EventOut } from '../catalog/schemas.ts';
import { defineTool } from '../../orchestrator/tool.ts';

export const cancelEvent = defineTool({
  name: 'cancel_event',
  title: 'Cancel an event',
  area: 'integration',
  description:
    'Cancels an event: its tiers stop selling (`event_cancelled`) and it leaves the shop window and product feed. ' +
    'Holds stay until released or expired. Every paid order is then refunded in full by a background job ' +
    '(progress: get_event_refunds): its tickets become void and the places do not go back on sale. Emits ' +
    '`event.cancelled` with the optional `reason`. Cancelling twice: event_cancelled.',
  input: z.strictObject({
    id: IdRef.describe('The event id (evt_…).'),
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
