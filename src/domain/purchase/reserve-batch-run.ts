/**
 * One batch of the hot-pool batcher (reserve-batcher.ts), in one transaction: its calls' keys settled, its quotes
 * locked and read with one statement, each call checked on its own, then one statement that writes the holds, the
 * quotes used, the pool's places and every caller's key with its outcome (src/storage/reserve-batch.ts). What it cannot
 * decide in the mode it runs in (a pool short of places, a key already stored) it throws, for the batcher to re-run the
 * batch in the mode that decides it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../kernel/clock.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { ShopRow } from '../../storage/entities/catalog.ts';
import type { QuoteRow, ReservationRow } from '../../storage/entities/purchase.ts';
import { settleKeys, type ClaimResult, type KeyWrite } from '../../storage/idempotency-store.ts';
import { lockQuotesWithOffers, writeBatch } from '../../storage/reserve-batch.ts';
import type { SharedCommit, ToolContext } from '../context.ts';
import { holdOf } from './reservations.ts';
import { allotInArrivalOrder, checkReserve, offersOf } from './reserve-checks.ts';
import { requireAccess } from './purchase-access.ts';

export interface Call {
  quoteId: string;
  ctx: ToolContext;
  present: (r: ReservationRow) => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A batch's answers, and what its commit settled about each call's idempotency key (applied once it has committed). */
export interface Written {
  results: Result[];
  /** Per call: its key's claim in this transaction (undefined: no key). */
  claims: (ClaimResult | undefined)[];
  /** Calls whose outcome was stored with the claim. */
  stored: Set<number>;
}

/** A call answered from its key's stored outcome: the orchestrator replays `SharedCommit.replay`. */
export class Replayed extends Error {
  constructor() {
    super('replayed');
  }
}

/** Refusals stored under the key like any outcome (not 5xx, not load; not `quote_already_used`, which the tool may still turn into the caller's own hold). */
const storable = (err: unknown): err is ToolError =>
  err instanceof ToolError && err.status < 500 && err.code !== 'rate_limited' && err.code !== 'quote_already_used';

/** Thrown inside a batch's transaction when a key it wrote was stored already: the batch re-runs with the keys read first. */
export class KeysTaken extends Error {
  constructor() {
    super('keys taken');
  }
}

/** How a batch runs: `allot` locks its pools first and allots in arrival order; `readKeys` reads its stored keys first. */
export interface Mode {
  allot: boolean;
  readKeys: boolean;
}

/** Re-runs of a batch whose keys were taken between its read and its write (another request's insert committed meanwhile). */
export const KEY_RETRIES = 2;

/** Thrown inside a batch's transaction when a pool cannot serve the whole batch: the batch re-runs in allot mode. */
export class ShortPool extends Error {
  readonly poolIds: string[];
  constructor(poolIds: string[]) {
    super('short pool');
    this.poolIds = poolIds;
  }
}

/**
 * Runs one batch in `em`'s transaction; returns each call's result (committed when the transaction commits). Throws
 * ShortPool or KeysTaken, having written nothing that stays, when the batch must re-run in another mode.
 * `shortPools`: pools found short recently, whose batches lock the pool first and allot.
 */
export async function runOneBatch(em: EntityManager, batch: Call[], mode: Mode, clock: Clock, shortPools: Set<string>): Promise<Written> {
  const now = clock.now();
  const results: Result[] = new Array(batch.length);
  // The keys first: duplicates in the batch, and (when re-run for a stored key) the stored rows, read with one
  // statement. A replay or a refused key settles its call here; the others' keys are written with the batch below.
  const keyed = batch.flatMap((c, index) => (c.ctx.sharedCommit?.claim ? [{ index, claim: c.ctx.sharedCommit.claim }] : []));
  const claims: (ClaimResult | undefined)[] = new Array(batch.length);
  if (keyed.length) {
    const got = await settleKeys(em, keyed.map((k) => k.claim), now, mode.readKeys);
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
  // Each call's rate-limit charge ran beside the statement above: a refused call fails now, before anything is
  // written for it (its key neither) or replayed to it.
  const charges = await Promise.all(batch.map((c) => c.ctx.sharedCommit?.charged?.then(() => undefined, (err: unknown) => err ?? new Error('charge failed'))));
  charges.forEach((err, index) => {
    if (err === undefined) return;
    results[index] = { ok: false, error: err };
    claims[index] = undefined;
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
      const { quote, shop } = await checkReserve({ principal: call.ctx.principal, em, clock }, call.quoteId, offers, now);
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
  if (mode.allot || candidates.some((c) => shortPools.has(c.quote.poolId))) {
    const allotted = await allotInArrivalOrder(em, candidates);
    granted = allotted.granted;
    for (const { index, error } of allotted.soldOut) results[index] = { ok: false, error };
    for (const poolId of allotted.roomy) shortPools.delete(poolId); // back to the optimistic path
  }

  const outcomes = new Map<number, KeyWrite>();
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
        outcomes.set(index, { ...keyOf(shared.claim), response: { status: done.status, body: done.output } });
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
      outcomes.set(index, { ...keyOf(claim), response: { status: r.error.status, body: r.error.toBody() } });
      stored.add(index);
    }
  }
  // Every key of the batch is written once, here: with its call's outcome, or in flight for a call whose answer the
  // orchestrator stores after the commit (one the tool turned into the caller's own hold).
  const keys: KeyWrite[] = [];
  for (const [index, call] of batch.entries()) {
    const claim = call.ctx.sharedCommit?.claim;
    if (claim && claims[index]?.kind === 'claimed') keys.push(outcomes.get(index) ?? { ...keyOf(claim), response: undefined });
  }
  // One statement inserts the holds, marks their quotes used, takes the pool's places and writes the keys. A pool
  // short of places rolls the batch back and it re-runs in allot mode; a key stored already, with its keys read first.
  const takes = [...taken].sort(([a], [b]) => a.localeCompare(b)).map(([poolId, quantity]) => ({ poolId, quantity }));
  const written = holds.length || keys.length ? await writeBatch(em, { holds, keys, takes }, now) : { short: [], keysTaken: false };
  if (written.short.length) throw new ShortPool(written.short);
  if (written.keysTaken) throw new KeysTaken();
  return { results, claims, stored };
}

/** The part of a call's key its row is written with. */
const keyOf = (claim: NonNullable<SharedCommit['claim']>) => ({ scope: claim.scope, key: claim.key, requestHash: claim.requestHash });
