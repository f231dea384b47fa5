/** An event refund's item follows its refund: settled with it, wherever the provider's answer is applied. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../storage/database.ts';

/**
 * The provider settled `refundId` (its answer or its signed event): the event-refund item that made it, if any,
 * settles with it in the same transaction, and its job closes when nothing is left pending. So the job's progress is
 * current at once, not after the runner's next pass (an item's lease: up to a minute; issue #36).
 */
export async function settleEventRefundItemOf(
  em: EntityManager,
  refundId: string,
  state: 'succeeded' | 'failed',
  now: Date,
): Promise<void> {
  const rows = await sql<{ event_id: string }>(
    em,
    `update event_refund_items set state = ?, lease_until = null, updated_at = ? where refund_id = ? and state = 'pending'
     returning event_id`,
    [state === 'succeeded' ? 'refunded' : 'failed', now, refundId],
  );
  const eventId = rows[0]?.event_id;
  if (!eventId) return;
  await sql(
    em,
    `update event_refund_jobs j set state = 'done', finished_at = ? where event_id = ? and state = 'running'
        and not exists (select 1 from event_refund_items i where i.event_id = j.event_id and i.state = 'pending')`,
    [now, eventId],
  );
}
