/**
 * The hold sweeper: releases reservations whose `expiresAt` has passed (held ones at their hold expiry,
 * confirming ones at their payment deadline), giving their places back exactly once and emitting
 * `reservation.expired`. Rows are claimed with FOR UPDATE SKIP LOCKED (src/storage/work-queue.ts), so several server
 * processes on one database never release the same hold twice. A swept confirming reservation keeps its payment
 * pending: the provider's late event then re-takes the places or refunds (see orders.ts).
 */
import { Reservation, type PurchaseLineRow } from '../../storage/entities/purchase.ts';
import { claimDue, type WorkTable } from '../../storage/work-queue.ts';
import { returnPlaces } from './inventory.ts';
import { returnDiscountUses } from './discount-uses.ts';
import { offerFreedPlaces } from './waiting-list-offers.ts';
import { mailWaitingListOffers } from './waiting-list-mail.ts';
import { Periodic } from '../../kernel/periodic.ts';
import { retryOwedRefunds, type SpineDeps } from './refunds.ts';
import { pruneExpired } from '../../storage/retention.ts';
import { reconcileUnknownPayments } from './payment-outcome.ts';
import { retryUnansweredRefunds } from './order-refunds.ts';
import { runEventRefunds } from './event-refunds.ts';
import { loadPurchaseViews } from './purchase-view.ts';
import { emitEvents } from '../../webhooks/outbox.ts';

export const SWEEP_BATCH = 500;
/** A hold is due for release once its `expiresAt` has passed (the hold expiry, or the payment deadline). */
const EXPIRED_HOLDS: WorkTable = {
  table: 'reservations',
  key: 'id',
  due: `state in ('held', 'confirming') and expires_at <= ?`,
  order: 'expires_at',
};

export interface SweepReport {
  /** Ids of the reservations released by this pass. */
  released: string[];
}

export class HoldSweeper {
  private readonly deps: SpineDeps;
  private readonly loop: Periodic;

  constructor(deps: SpineDeps) {
    this.deps = deps;
    this.loop = new Periodic('hold-sweeper', deps.log);
  }

  /** Releases up to `limit` reservations expired at `now`, in one short transaction. */
  sweepExpiredHolds(now: Date = this.deps.clock.now(), limit: number = SWEEP_BATCH): Promise<SweepReport> {
    return this.loop.exclusive(() => this.sweep(now, limit));
  }

  /** Asks the provider again about payments whose outcome is unknown; returns how many were resolved. */
  reconcilePayments(now: Date = this.deps.clock.now()): Promise<number> {
    return this.loop.exclusive(() => reconcileUnknownPayments(this.deps, now));
  }

  /**
   * One pass of the event-refund job (cancelled events): refunds up to a batch of orders; returns how many were
   * settled.
   */
  runEventRefunds(): Promise<number> {
    return this.loop.exclusive(() => runEventRefunds(this.deps));
  }

  /**
   * Every `intervalMs` (0: off): sweep expired holds, retry owed refunds, reconcile unknown payment and refund
   * outcomes, refund orders of cancelled events, mail waiting-list offers, prune expired records (order e-mails have
   * their own worker).
   */
  start(intervalMs: number): void {
    this.loop.start(intervalMs, async () => {
      const now = this.deps.clock.now();
      const { released } = await this.sweep(now, SWEEP_BATCH);
      await retryOwedRefunds(this.deps);
      await reconcileUnknownPayments(this.deps, now);
      await retryUnansweredRefunds(this.deps, now);
      await runEventRefunds(this.deps);
      await mailWaitingListOffers(this.deps);
      await pruneExpired(this.deps.db, now);
      return released.length === SWEEP_BATCH;
    });
  }

  /** Mails the waiting-list offers made since the last pass (waiting-list-mail.ts); returns how many were sent. */
  mailWaitingListOffers(): Promise<number> {
    return this.loop.exclusive(() => mailWaitingListOffers(this.deps));
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass; its releases are counted (`holdsExpired`) once committed. */
  private async sweep(now: Date, limit: number): Promise<SweepReport> {
    const report = await this.pass(now, limit);
    this.deps.metrics.holdsExpired(report.released.length);
    return report;
  }

  private pass(now: Date, limit: number): Promise<SweepReport> {
    return this.deps.db.transaction(async (em) => {
      // The release rule: the claim itself marks each hold released for expiry, in this transaction.
      type Claimed = { id: string; pool_id: string; quantity: number; lines: PurchaseLineRow[] | null };
      const rows = await claimDue<Claimed>(em, EXPIRED_HOLDS, {
        now,
        limit,
        set: `state = 'released', release_reason = 'expired', released_at = ?, updated_at = ?, payment_deadline = null`,
        setParams: [now, now],
        returning: 'id, pool_id, quantity, lines',
      });
      const perPool = new Map<string, number>();
      for (const row of rows) {
        // A multi-line hold gives back every line's places (one tier: its row's pool and quantity).
        for (const l of row.lines ?? [{ poolId: row.pool_id, quantity: row.quantity }]) {
          perPool.set(l.poolId, (perPool.get(l.poolId) ?? 0) + l.quantity);
        }
      }
      if (rows.length) {
        // One query per kind of row and one insert for the whole pass, whatever the number of holds released.
        const released = await em.find(Reservation, { id: { $in: rows.map((r) => r.id) } }, { orderBy: { id: 'asc' } });
        await returnDiscountUses(em, released, now); // only holds with a discount code (discount-uses.ts)
        const views = await loadPurchaseViews(em, released);
        await emitEvents(
          em,
          released.map((r, i) => ({
            shopId: r.shopId,
            type: 'reservation.expired' as const,
            data: { ...views[i]! },
            now,
          })),
        );
      }
      // The pool rows last: a hot pool's row stays locked only for these updates and the commit, not while the events
      // are written.
      for (const poolId of [...perPool.keys()].sort()) {
        await returnPlaces(em, poolId, perPool.get(poolId)!);
        await offerFreedPlaces(em, poolId, now); // an expired offer passes to the next in line
      }
      return { released: rows.map((r) => r.id) };
    });
  }
}
