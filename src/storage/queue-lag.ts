/** How far the background queues are behind: the age of the oldest work each still has to do. */
import type { Database } from './database.ts';

export interface QueueLag {
  /** Seconds since the oldest webhook event not yet fanned out to its deliveries was written; 0 when none waits. */
  outboxSeconds: number;
  /** Seconds since the oldest webhook delivery still pending was created; 0 when none waits. */
  webhookSeconds: number;
}

/** The queues' lag at `now`, in one statement reading only the waiting rows (partial indexes on each). */
export async function queueLag(db: Database, now: Date): Promise<QueueLag> {
  const [row] = await db.execute<{ outbox: Date | string | null; webhook: Date | string | null }>(
    `select (select min(created_at) from webhook_events where dispatched_at is null) as outbox,
            (select min(created_at) from webhook_deliveries where status = 'pending') as webhook`,
  );
  const age = (v: Date | string | null | undefined) =>
    v ? Math.max(0, (now.getTime() - new Date(v).getTime()) / 1000) : 0;
  return { outboxSeconds: age(row?.outbox), webhookSeconds: age(row?.webhook) };
}
