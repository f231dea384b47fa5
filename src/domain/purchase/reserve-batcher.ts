/**
 * The hot pool (docs/performance.md). Every reserve on one pool must change that pool's row, and a row can
 * be changed by one transaction at a time, so one reserve per transaction can never sell faster than the row's
 * lock-and-commit cycle. Here the reserves arriving in one process while earlier ones are being written are
 * grouped: a batch claims every call's idempotency key with one statement (a replay or a refused key settles
 * its call there), locks its quotes and reads their tiers, shops and events with one statement, waits for each
 * call's rate-limit charge (started when the call joined, it ran beside those statements), checks each call on its
 * own (access, single use, expiry, restrictions, the caller's authority), then with ONE statement inserts every
 * hold, marks the quotes used, stores every caller's idempotency outcome (refusals too) and takes the pool's places
 * with one conditional update, and commits once: the claims commit with the holds and outcomes
 * (src/storage/reserve-batch.ts). When a pool has not enough places for the whole batch, the batch is re-run with
 * the pool row locked first and the places are allotted in arrival order: each call that fits gets its hold, the
 * others `sold_out`.
 *
 * Each call keeps its own outcome: a call's own failure (not found, used quote, restriction, authority, sold
 * out) is decided before anything is written and fails that call alone; an unexpected database failure of
 * a batch re-runs its calls one by one, so it too fails only the call it belongs to. The pool's conditional
 * update stays the oversell arbiter, so any number of processes may batch at once.
 *
 * No call waits for a timer: a batch starts as soon as a slot is free, and arrivals wait only while earlier
 * batches are in flight, so a quiet pool runs a batch of one (the same statements as an unbatched reserve).
 * Admission control (reserve-admission.ts): a call that would wait longer than RESERVE_MAX_WAIT_MS (estimated from
 * recent batch times) is refused at once with 429 `rate_limited` and `retryAfter`, before its idempotency key is claimed.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import type { ShopRow } from '../../storage/entities/catalog.ts';
import type { QuoteRow, ReservationRow } from '../../storage/entities/purchase.ts';
import { claimKeys, type ClaimResult, type Outcome } from '../../storage/idempotency-store.ts';
import { lockQuotesWithOffers, writeBatch } from '../../storage/reserve-batch.ts';
import type { Database } from '../../storage/database.ts';
import type { Services, ToolContext } from '../context.ts';
import { holdOf } from './reservations.ts';
import { ReserveAdmission, type AdmissionOptions } from './reserve-admission.ts';
import { allotInArrivalOrder, checkReserve, offersOf } from './reserve-checks.ts';
import { requireAccess } from './purchase-access.ts';

interface Call {
  quoteId: string;
  ctx: ToolContext;
  present: (r: ReservationRow) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A batch's answers, and what its commit settled about each call's idempotency key (applied once it has committed). */
interface Written {
  results: Result[];
  /** Per call: its key's claim in this transaction (undefined: no key). */
  claims: (ClaimResult | undefined)[];
  /** Calls whose outcome was stored with the claim. */
  stored: Set<number>;
}

/** A call answered from its key's stored outcome: the orchestrator replays `SharedCommit.replay`. */
class Replayed extends Error {
  constructor() {
    super('replayed');
  }
}

/** Refusals stored under the key like any outcome (not 5xx, not load; not `quote_already_used`, which the tool may still turn into the caller's own hold). */
const storable = (err: unknown): err is ToolError =>
  err instanceof ToolError && err.status < 500 && err.code !== 'rate_limited' && err.code !== 'quote_already_used';

/** Thrown inside a batch's transaction when a pool cannot serve the whole batch: the batch re-runs in allot mode. */
class ShortPool extends Error {
  readonly poolIds: string[];
  constructor(poolIds: string[]) {
    super('short pool');
    this.poolIds = poolIds;
  }
}

export type BatcherOptions = AdmissionOptions;

export class ReserveBatcher {
  private readonly db: Database;
  private readonly services: Pick<Services, 'clock'>;
  private readonly opts: BatcherOptions;
  private readonly queue: Call[] = [];
  private running = 0;
  private readonly admission: ReserveAdmission;
  /** Pools found short recently: their batches lock the pool first and allot (no optimistic attempt). */
  private readonly shortPools = new Set<string>();
  private readonly counters = { batches: 0, calls: 0, largest: 0 };

  constructor(db: Database, services: Pick<Services, 'clock'>, opts: BatcherOptions) {
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

  /** Admits a new call or refuses it for load (ReserveAdmission); returns the release to call once it is answered. */
  admit(): () => void {
    return this.admission.admit(this.queue.length, this.running);
  }

  /** Queues a reserve of `quoteId` by `ctx.principal`; resolves with `present(hold)` once the hold is committed. */
  submit(ctx: ToolContext, quoteId: string, present: (r: ReservationRow) => unknown): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ quoteId, ctx, present, resolve, reject });
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
    // Committed: each call learns what became of its key, then gets its own answer.
    batch.forEach((call, i) => {
      const shared = call.ctx.sharedCommit;
      const claim = written.claims[i];
      if (shared && claim?.kind === 'claimed') shared.claimed = true;
      if (shared && written.stored.has(i)) shared.stored = true;
      if (shared && claim?.kind === 'replay') {
        shared.replay = claim.response;
        call.reject(new Replayed());
        return;
      }
      const r = written.results[i]!;
      if (r.ok) call.resolve(r.value);
      else call.reject(r.error);
    });
  }

  /** Runs the batch optimistically, or with its pools locked first when one is (or was recently) short. */
  private async attempt(batch: Call[]): Promise<Written> {
    try {
      return await this.db.transaction((em) => this.write(em, batch, false));
    } catch (err) {
      if (!(err instanceof ShortPool)) throw err;
      if (this.shortPools.size > 10_000) this.shortPools.clear(); // sold-out pools accumulate; forgetting one only costs an optimistic try
      for (const id of err.poolIds) this.shortPools.add(id);
    }
    return this.db.transaction((em) => this.write(em, batch, true));
  }

  /** One batch in one transaction; returns each call's result (committed when this resolves). */
  private async write(em: EntityManager, batch: Call[], forceAllot: boolean): Promise<Written> {
    const now = this.services.clock.now();
    const results: Result[] = new Array(batch.length);
    // The keys first, with one statement (in key order, before any quote or pool lock): a replay or a refused key
    // settles its call here, and the claims commit with the holds and outcomes below.
    const keyed = batch.flatMap((c, index) => (c.ctx.sharedCommit?.claim ? [{ index, claim: c.ctx.sharedCommit.claim }] : []));
    const claims: (ClaimResult | undefined)[] = new Array(batch.length);
    if (keyed.length) {
      const got = await claimKeys(em, keyed.map((k) => k.claim), now);
      keyed.forEach((k, j) => {
        const c = got[j]!;
        claims[k.index] = c;
        if (c.kind === 'refused') results[k.index] = { ok: false, error: c.error };
        if (c.kind === 'replay') results[k.index] = { ok: false, error: new Replayed() };
      });
    }
    const live = batch.flatMap((call, index) => (results[index] ? [] : [{ call, index }]));
    const ids = [...new Set(live.map((l) => l.call.quoteId))].sort();
    // One statement locks every quote of the batch, in id order (no deadlock between batches of several processes),
    // and reads their tiers, shops and events.
    const locked = await lockQuotesWithOffers(em, ids);
    // Each call's rate-limit charge ran beside the statements above: a refused call fails now, before anything is
    // written for it or replayed to it (its claim, if any, is given up by the orchestrator).
    const charges = await Promise.all(batch.map((c) => c.ctx.sharedCommit?.charged?.then(() => undefined, (err: unknown) => err ?? new Error('charge failed'))));
    charges.forEach((err, index) => {
      if (err === undefined) return;
      results[index] = { ok: false, error: err };
      if (claims[index]?.kind !== 'claimed') claims[index] = undefined;
    });
    const offers = offersOf(locked);
    /** Quote id → the reservation made from it in this batch ('' until it is made). */
    const usedBy = new Map<string, string>();
    /** Calls that named a quote an earlier call of this batch is reserving: answered once that call's fate is known. */
    const repeats: { index: number; quoteId: string }[] = [];
    const winnerOf = new Map<string, number>();
    const candidates: { index: number; quote: QuoteRow; shop: ShopRow }[] = [];
    for (const { index, call } of live) {
      if (results[index]) continue;
      try {
        if (usedBy.has(call.quoteId)) {
          requireAccess(call.ctx.principal, offers.quotes.get(call.quoteId), 'quote', call.quoteId); // another caller's: not found
          repeats.push({ index, quoteId: call.quoteId });
          continue;
        }
        const { quote, shop } = await checkReserve({ principal: call.ctx.principal, em, clock: this.services.clock }, call.quoteId, offers, now);
        usedBy.set(quote.id, '');
        winnerOf.set(quote.id, index);
        candidates.push({ index, quote, shop });
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        results[index] = { ok: false, error: err };
      }
    }

    // Allot mode (a pool was short): each pool row is locked now and its places are handed out in arrival order.
    let granted = candidates;
    if (forceAllot || candidates.some((c) => this.shortPools.has(c.quote.poolId))) {
      const allotted = await allotInArrivalOrder(em, candidates);
      granted = allotted.granted;
      for (const { index, error } of allotted.soldOut) results[index] = { ok: false, error };
      for (const poolId of allotted.roomy) this.shortPools.delete(poolId); // back to the optimistic path
    }

    const outcomes: Outcome[] = [];
    const stored = new Set<number>();
    const taken = new Map<string, number>();
    const holds: ReservationRow[] = [];
    for (const { index, quote, shop } of granted) {
      const call = batch[index]!;
      const reservation = holdOf(quote, shop, now);
      holds.push(reservation);
      usedBy.set(quote.id, reservation.id);
      taken.set(quote.poolId, (taken.get(quote.poolId) ?? 0) + quote.quantity);
      const raw = call.present(reservation);
      const shared = call.ctx.sharedCommit;
      if (shared) {
        const done = shared.finish(raw);
        if (shared.claim && claims[index]?.kind === 'claimed') {
          outcomes.push({ scope: shared.claim.scope, key: shared.claim.key, response: { status: done.status, body: done.output } });
          stored.add(index);
        }
      }
      results[index] = { ok: true, value: raw };
    }
    for (const { index, quoteId } of repeats) {
      const reservationId = usedBy.get(quoteId);
      results[index] = reservationId
        ? { ok: false, error: new ToolError('quote_already_used', undefined, { quoteId, reservationId }) }
        : results[winnerOf.get(quoteId)!]!; // the first call was refused (sold out): so is the repeat
    }
    // Each refusal decided in this batch is stored under its key too, so its replay commits with the batch.
    for (const [index, call] of batch.entries()) {
      const r = results[index]!;
      const claim = call.ctx.sharedCommit?.claim;
      if (!r.ok && claim && claims[index]?.kind === 'claimed' && storable(r.error)) {
        outcomes.push({ scope: claim.scope, key: claim.key, response: { status: r.error.status, body: r.error.toBody() } });
        stored.add(index);
      }
    }
    // One statement inserts the holds, marks their quotes used, stores every outcome and takes the (first) pool's
    // places; in optimistic mode a pool short of places rolls the batch back and it re-runs in allot mode.
    const takes = [...taken].sort(([a], [b]) => a.localeCompare(b)).map(([poolId, quantity]) => ({ poolId, quantity }));
    const short = holds.length || outcomes.length ? await writeBatch(em, { holds, outcomes, takes }) : [];
    if (short.length) throw new ShortPool(short);
    return { results, claims, stored };
  }
}

const batchers = new WeakMap<Services, ReserveBatcher>();

/** The process's reserve batcher for these services (one per app). */
export function reserveBatcher(services: Services): ReserveBatcher {
  let b = batchers.get(services);
  if (!b) {
    const c = services.config;
    b = new ReserveBatcher(services.db, services, { batchMax: c.reserveBatchMax, inFlight: c.reserveBatchesInFlight, maxWaitMs: c.reserveMaxWaitMs });
    batchers.set(services, b);
  }
  return b;
}

/** Admission control for reserve (the tool's `admit`): 429 `rate_limited` when this process's reserve queue is saturated. */
export function admitReserve(services: Services): () => void {
  return reserveBatcher(services).admit();
}

/** Reserves a quote through the batcher; `present` turns the committed hold into the tool's output. */
export function reserveInBatch<T>(ctx: ToolContext, quoteId: string, present: (r: ReservationRow) => T): Promise<T> {
  return reserveBatcher(ctx.services).submit(ctx, quoteId, present) as Promise<T>;
}
