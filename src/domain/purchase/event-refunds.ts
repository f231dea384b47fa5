/**
 * Refunding every order of a cancelled event, as a background job that survives restarts and reports progress.
 * `startEventRefunds` (called by the event-cancel operation, or the `refund_event_orders` tool) records the job and
 * one item per paid order, in the caller's transaction. The runner (the sweeper's loop, in any process) leases
 * pending items and refunds each order in full through the same steps as `refund_order`:
 * - tx1 locks the order and the item, and records the order's refund AND the item's `refund_id` together, so a
 *   crash after it leaves a refund the next run asks the provider about again by the same id (the provider refunds
 *   at most once per refund id), never a second refund;
 * - the provider call; tx2 applies the answer and settles the item (`refunded`, `failed`, or still pending while
 *   the provider settles later).
 * An item whose lease ran out (its process died) is picked up again; because of the above, each order is refunded
 * exactly once, whichever process finishes it.
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError, describeError } from '../../kernel/errors.ts';
import { iso, isoOrNull } from '../../kernel/wire.ts';
import { sql } from '../../storage/database.ts';
import { claimDue, type WorkTable } from '../../storage/work-queue.ts';
import { Order, Refund } from '../../storage/entities/purchase.ts';
import { applyRefundResult, askProvider, claimRefund, refundIds } from './order-refunds.ts';
import type { SpineDeps } from './refunds.ts';

/** How long a runner owns an item before another may take it over. */
export const EVENT_REFUND_LEASE_MS = 60_000;
/** Items a runner takes per pass. */
export const EVENT_REFUND_BATCH = 5;
/** A pending item is due when no live runner holds it; it is retried once its lease ends (no other back-off). */
const ITEMS: WorkTable = {
  table: 'event_refund_items',
  key: 'event_id, order_id',
  due: `state = 'pending' and (lease_until is null or lease_until <= ?)`,
  order: 'event_id, order_id',
  lease: { column: 'lease_until', ms: EVENT_REFUND_LEASE_MS },
  attempts: 'attempts',
};

export interface EventRefundProgress {
  eventId: string;
  state: 'running' | 'done';
  reason: string;
  returnToPool: boolean;
  total: number;
  refunded: number;
  failed: number;
  skipped: number;
  pending: number;
  startedAt: string;
  finishedAt: string | null;
}

/**
 * Starts refunding every paid order of an event (inside the caller's transaction, e.g. the one that cancels the
 * event). Starting again for the same event changes nothing and returns the job's progress.
 */
export async function startEventRefunds(
  em: EntityManager,
  job: { eventId: string; shopId: string; organizationId: string; reason: string; returnToPool: boolean },
  now: Date,
): Promise<EventRefundProgress> {
  await sql(
    em,
    `insert into event_refund_jobs (event_id, shop_id, organization_id, reason, return_to_pool, state, started_at)
     values (?, ?, ?, ?, ?, 'running', ?) on conflict do nothing`,
    [job.eventId, job.shopId, job.organizationId, job.reason, job.returnToPool, now],
  );
  await sql(
    em,
    `insert into event_refund_items (event_id, order_id, state, updated_at)
     select event_id, id, 'pending', ? from orders where event_id = ? and state in ('completed', 'partially_refunded')
     on conflict do nothing`,
    [now, job.eventId],
  );
  return (await eventRefundProgress(em, job.eventId))!;
}

/** The job's progress, or undefined when the event has none. */
export async function eventRefundProgress(
  em: EntityManager,
  eventId: string,
): Promise<EventRefundProgress | undefined> {
  const [j] = await sql<{
    reason: string;
    return_to_pool: boolean;
    state: 'running' | 'done';
    started_at: Date;
    finished_at: Date | null;
  }>(em, 'select reason, return_to_pool, state, started_at, finished_at from event_refund_jobs where event_id = ?', [
    eventId,
  ]);
  if (!j) return undefined;
  const counts = await sql<{ state: string; n: number }>(
    em,
    'select state, count(*)::int as n from event_refund_items where event_id = ? group by state',
    [eventId],
  );
  const n = (s: string) => counts.find((c) => c.state === s)?.n ?? 0;
  return {
    eventId,
    state: j.state,
    reason: j.reason,
    returnToPool: j.return_to_pool,
    total: counts.reduce((a, c) => a + c.n, 0),
    refunded: n('refunded'),
    failed: n('failed'),
    skipped: n('skipped'),
    pending: n('pending'),
    startedAt: iso(j.started_at),
    finishedAt: isoOrNull(j.finished_at),
  };
}

interface Item {
  event_id: string;
  order_id: string;
}

/**
 * One pass: leases up to `limit` pending items, refunds each, and closes finished jobs. Returns how many items it
 * settled.
 */
export async function runEventRefunds(deps: SpineDeps, limit = EVENT_REFUND_BATCH): Promise<number> {
  const now = deps.clock.now();
  const items = await claimDue<Item>(deps.db, ITEMS, { now, limit, returning: 'event_id, order_id' });
  let settled = 0;
  for (const item of items) {
    try {
      if (await refundItem(deps, item)) settled++;
    } catch (err) {
      deps.log.error(
        { eventId: item.event_id, orderId: item.order_id, err: describeError(err) },
        'event refund failed; will retry',
      );
    }
  }
  await deps.db.execute(
    `update event_refund_jobs j set state = 'done', finished_at = ?
      where state = 'running' and not exists (select 1 from event_refund_items i where i.event_id = j.event_id and i.state = 'pending')`,
    [deps.clock.now()],
  );
  if (settled) deps.orderMail.kick();
  return settled;
}

/** Refunds one item's order (or resumes its refund); true when the item is settled. */
async function refundItem(deps: SpineDeps, item: Item): Promise<boolean> {
  const claimed = await deps.db.transaction(async (em) => {
    const order = await em.findOneOrFail(Order, { id: item.order_id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const [row] = await sql<{ state: string; refund_id: string | null; reason: string; return_to_pool: boolean }>(
      em,
      `select i.state, i.refund_id, j.reason, j.return_to_pool from event_refund_items i join event_refund_jobs j on j.event_id = i.event_id
        where i.event_id = ? and i.order_id = ? for update of i`,
      [item.event_id, item.order_id],
    );
    if (!row || row.state !== 'pending') return { done: true as const };
    if (row.refund_id) return { refundId: row.refund_id };
    try {
      const refund = await claimRefund(
        em,
        order,
        { orderId: order.id, reason: row.reason, returnToPool: row.return_to_pool },
        deps.clock.now(),
      );
      await sql(em, 'update event_refund_items set refund_id = ?, updated_at = ? where event_id = ? and order_id = ?', [
        refund.id,
        deps.clock.now(),
        item.event_id,
        item.order_id,
      ]);
      return { refundId: refund.id };
    } catch (err) {
      if (!(err instanceof ToolError) || err.code !== 'order_fully_refunded') throw err;
      await settleItem(em, item, 'skipped', deps.clock.now());
      return { done: true as const };
    }
  });
  if ('done' in claimed) return true;
  const refund = await deps.db.fork().findOneOrFail(Refund, { id: claimed.refundId });
  let state = refund.state;
  if (state === 'pending' && !refund.providerReference) {
    const result = await askProvider(deps, refund);
    if (!result) return false;
    state = (await deps.db.transaction((em) => applyRefundResult(em, refund.id, result, deps.clock.now()))).refund
      .state;
    deps.metrics.orderRefunded(state, 'event_cancelled'); // once: the provider's first answer for this refund
    deps.events.record({ event: 'refund', ...refundIds(refund), outcome: state, cause: 'event_cancelled' });
  }
  if (state === 'pending') return false; // the provider settles later; a later pass (after the lease) looks again
  await deps.db.transaction((em) =>
    settleItem(em, item, state === 'succeeded' ? 'refunded' : 'failed', deps.clock.now()),
  );
  return true;
}

async function settleItem(
  em: EntityManager,
  item: Item,
  state: 'refunded' | 'failed' | 'skipped',
  now: Date,
): Promise<void> {
  await sql(
    em,
    `update event_refund_items set state = ?, lease_until = null, updated_at = ? where event_id = ? and order_id = ? and state = 'pending'`,
    [state, now, item.event_id, item.order_id],
  );
}
