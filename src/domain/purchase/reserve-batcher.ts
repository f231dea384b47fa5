/**
 * The hot pool (docs/performance.md). Every reserve on one pool must change that pool's row, and a row can be changed
 * by one transaction at a time, so one reserve per transaction can never sell faster than the row's lock-and-commit
 * cycle. Here the reserves arriving in one process while earlier ones are being written are grouped: a batch locks its
 * quotes and reads their tiers, shops and events with one statement, waits for each call's rate-limit charge (started
 * when the call joined, it ran beside that statement), decides each call on its own with the one reserve rule
 * (`decideReserve` in reservations.ts: a new hold, the caller's own hold, or a refusal), then with ONE statement
 * inserts every hold, marks the quotes used, takes the pool's places with one conditional update and inserts every
 * caller's idempotency key with its outcome (refusals too), and commits once: each key is written once, with its hold
 * or its refusal (src/storage/reserve-batch.ts). A key found already stored (a retry, a conflict) makes the batch
 * re-run with the stored keys read first, so a replay or a refused key settles its call before anything is decided
 * (`settleKeys`). One batch's transaction is reserve-batch-run.ts. When a pool has not enough places for the whole
 * batch, the batch is re-run with the pool row locked first and the places are allotted in arrival order: each call
 * that fits gets its hold, the others `sold_out`.
 *
 * Each call keeps its own outcome: a call's own failure (not found, used quote, restriction, authority, sold
 * out) is decided before anything is written and fails that call alone; an unexpected database failure of
 * a batch re-runs its calls one by one, so it too fails only the call it belongs to. The pool's conditional
 * update stays the oversell arbiter, so any number of processes may batch at once.
 *
 * No call waits for a timer: a batch starts as soon as a slot is free, and arrivals wait only while earlier
 * batches are in flight, so a quiet pool runs a batch of one (the same statements as an unbatched reserve).
 * Admission control (reserve-admission.ts): a call that would wait longer than RESERVE_MAX_WAIT_MS (estimated from
 * recent batch times) is refused with 429 `rate_limited` and `retryAfter` before anything is written for it, and as
 * early as the refusal is certain; a call takes a place only once its input is read and its caller authenticated.
 */
import { ToolError } from '../../kernel/errors.ts';
import type { Database } from '../../storage/database.ts';
import type { Services, ToolContext } from '../context.ts';
import { ReserveAdmission, type AdmissionCounts, type AdmissionOptions, type Arrival } from './reserve-admission.ts';
import { KEY_RETRIES, KeysTaken, runOneBatch, ShortPool } from './reserve-batch-run.ts';
import type { Call, Mode, Written } from './reserve-batch-run.ts';
import type { PurchaseView } from './purchase-view.ts';
import { routeReserve } from './pool-owners.ts';

export type BatcherOptions = AdmissionOptions;

export class ReserveBatcher {
  private readonly db: Database;
  private readonly services: Pick<Services, 'clock' | 'metrics'>;
  private readonly opts: BatcherOptions;
  private readonly queue: Call[] = [];
  private running = 0;
  private readonly admission: ReserveAdmission;
  /** Pools found short recently: their batches lock the pool first and allot (no optimistic attempt). */
  private readonly shortPools = new Set<string>();
  private readonly counters = { batches: 0, calls: 0, largest: 0 };

  constructor(db: Database, services: Pick<Services, 'clock' | 'metrics'>, opts: BatcherOptions) {
    this.db = db;
    this.services = services;
    this.opts = opts;
    this.admission = new ReserveAdmission({ ...opts, clock: services.clock });
  }

  /** Counters for the bench and tests: batches run, calls in them, largest batch, calls refused for load. */
  get stats(): { batches: number; calls: number; largest: number; refused: number } {
    return { ...this.counters, refused: this.admission.refused };
  }

  /** Calls waiting for a batch (not yet in one). */
  get queued(): number {
    return this.queue.length;
  }

  /** Batches running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Admission decisions and the calls inside and arriving now (ReserveAdmission.counts: `/metrics`, `/readyz`). */
  get admissions(): AdmissionCounts {
    return this.admission.counts();
  }

  /** Refuses a call for load when that is already certain, taking nothing (ReserveAdmission.check). */
  check(): void {
    this.admission.check(this.queue.length, this.running);
  }

  /** A call read whole arrives, or is refused; it takes a place once authenticated (ReserveAdmission.arrive). */
  arrive(): Arrival {
    return this.admission.arrive(
      () => this.queue.length,
      () => this.running,
    );
  }

  /** Queues a reserve of `quoteId` by `ctx.principal`; resolves with its answer once the batch has committed. */
  submit(ctx: ToolContext, quoteId: string): Promise<PurchaseView> {
    // RESERVE_ROUTING=owner: the owner process's batcher may take it (pool-owners.ts).
    return routeReserve(ctx, quoteId, () => this.queueHere(ctx, quoteId)) ?? this.queueHere(ctx, quoteId);
  }

  private queueHere(ctx: ToolContext, quoteId: string): Promise<PurchaseView> {
    return new Promise((resolve, reject) => {
      this.queue.push({ quoteId, ctx, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.opts.inFlight && this.queue.length) {
      const batch = this.queue.splice(0, this.opts.batchMax);
      this.running++;
      const started = performance.now();
      void this.runBatch(batch).finally(() => {
        this.admission.record(batch.length, performance.now() - started);
        this.services.metrics.reserveBatch(batch.length);
        this.running--;
        this.pump();
      });
    }
  }

  private async runBatch(batch: Call[]): Promise<void> {
    this.counters.batches++;
    this.counters.calls += batch.length;
    this.counters.largest = Math.max(this.counters.largest, batch.length);
    let written: Written;
    try {
      written = await this.attempt(batch);
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      // An unexpected failure is not pinned on the whole batch: each call runs alone and keeps its own outcome.
      for (const call of batch) await this.runBatch([call]);
      return;
    }
    // Committed: a key written with its call's outcome is stored (its owner, CallKey, is told), then each call gets its
    // own answer (a replay is the storage's Replay, thrown to the orchestrator like the unbatched claim's).
    batch.forEach((call, i) => {
      if (written.stored.has(i)) call.ctx.idempotency?.committed();
      const r = written.results[i]!;
      if (r.ok) call.resolve(r.value);
      else call.reject(r.error);
    });
  }

  /**
   * Runs the batch optimistically (every key taken to be new, the pools not locked first), then as it turns out it
   * must: with its pools locked first when one is (or was recently) short, with its stored keys read first when one was
   * taken.
   */
  private async attempt(batch: Call[]): Promise<Written> {
    const mode: Mode = { allot: false, readKeys: false };
    for (let keyRetries = 0; ;) {
      try {
        return await this.db.transaction((em) => runOneBatch(em, batch, mode, this.services.clock, this.shortPools));
      } catch (err) {
        if (err instanceof ShortPool && !mode.allot) {
          if (this.shortPools.size > 10_000) this.shortPools.clear(); // sold-out pools accumulate; forgetting one only costs an optimistic try
          for (const id of err.poolIds) this.shortPools.add(id);
          mode.allot = true;
        } else if (err instanceof KeysTaken && keyRetries++ < KEY_RETRIES) {
          mode.readKeys = true;
        } else if (err instanceof KeysTaken && batch.length === 1) {
          // Another request kept storing this call's key between the read and the write: it is that request's, in
          // flight.
          const idempotencyKey = batch[0]!.ctx.idempotency?.key;
          throw new ToolError('idempotency_in_flight', undefined, { idempotencyKey }, 1);
        } else throw err;
      }
    }
  }
}

const batchers = new WeakMap<Services, ReserveBatcher>();

/** The process's reserve batcher for these services (one per app). */
export function reserveBatcher(services: Services): ReserveBatcher {
  let b = batchers.get(services);
  if (!b) {
    const c = services.config;
    b = new ReserveBatcher(services.db, services, {
      batchMax: c.reserveBatchMax,
      inFlight: c.reserveBatchesInFlight,
      maxWaitMs: c.reserveMaxWaitMs,
    });
    batchers.set(services, b);
  }
  return b;
}

/**
 * Admission control for reserve (the tool's `admission`): 429 `rate_limited` when this process's reserve queue is
 * saturated; `check` refuses without taking anything, `arrive` counts a call read whole until it takes its place.
 */
export const reserveAdmission = {
  check: (services: Services): void => reserveBatcher(services).check(),
  arrive: (services: Services): Arrival => reserveBatcher(services).arrive(),
};

/**
 * The `reserve` tool's path (REST, MCP, A2A): the reserve rule (`decideReserve`) through this process's batch. Answers
 * with the new hold, or the caller's own earlier hold as it is now; the call's key (ctx.idempotency) is written in the
 * batch's transaction with that answer.
 */
export function reserveInBatch(ctx: ToolContext, quoteId: string): Promise<PurchaseView> {
  return reserveBatcher(ctx.services).submit(ctx, quoteId);
}
