/**
 * Calling an event off: the catalog change, and the refund of every paid order as a background job, in one transaction.
 */
import type { ToolContext } from '../context.ts';
import { organizationOf } from '../../kernel/principal.ts';
import type { EventRow } from '../../storage/entities/catalog.ts';
import { cancelEvent } from '../catalog/catalog-changes.ts';
import { startEventRefunds } from './event-refunds.ts';

/**
 * Cancels the event (tiers stop selling) and starts refunding its paid orders; the job survives restarts. Its
 * `event_cancelled` business event is written once the call committed.
 */
export async function cancelEventAndRefundOrders(
  ctx: Pick<ToolContext, 'em' | 'principal' | 'clock' | 'events'>,
  id: string,
  reason: string | undefined,
): Promise<EventRow> {
  const event = await cancelEvent(ctx, id, reason);
  await startEventRefunds(
    ctx.em,
    {
      eventId: event.id,
      shopId: event.shopId,
      organizationId: organizationOf(ctx.principal) ?? '',
      reason: reason ?? 'event_cancelled',
      returnToPool: false,
    },
    ctx.clock.now(),
  );
  ctx.events.record({ event: 'event_cancelled', eventId: event.id, merchantId: event.shopId });
  return event;
}
