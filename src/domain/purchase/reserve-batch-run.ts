/**
 * One batch of the hot-pool batcher (reserve-batcher.ts), in one transaction: its calls' keys settled, its quotes
 * locked and read with one statement, each call decided on its own by the reserve rule (`decideReserve`), then one
 * statement that writes the holds, the quotes used, the pool's places and every caller's key with its outcome
 * (src/storage/reserve-batch.ts). What it cannot
 * decide in the mode it runs in (a pool short of places, a key already stored) it throws, for the batcher to re-run the
 * batch in the mode that decides it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../kernel/clock.ts';
import { ToolError } from '../../kernel/errors.ts';
import type { ShopRow } from '../../storage/entities/catalog.ts';
import type { QuoteRow, ReservationRow } from '../../storage/entities/purchase.ts';
import { keepsOutcome, Replay } from '../../storage/idempotency-store.ts';
import type { KeyWrite, StoredResponse } from '../../storage/idempotency-store.ts';
import { settleKeys, type ClaimResult } from '../../storage/key-settle.ts';
import { lockQuotesWithOffers, writeBatch } from '../../storage/reserve-batch.ts';
import type { ToolContext } from '../context.ts';
import { decideReserve, holdOf, requireReservation } from './reservations.ts';
import { allotInArrivalOrder, offerIn, offersOf } from './reserve-checks.ts';
import { requireAccess } from './purchase-access.ts';
import { decideDiscountUses, writeDiscountUses } from './discount-uses.ts';
import { placesPerPool } from './lines.ts';
import { loadPurchaseView, reservationView, type PurchaseView } from './purchase-view.ts';

export interface Call {
  quoteId: string;
  ctx: ToolContext;
  resolve: (value: PurchaseView) => void;
  reject: (err: unknown) => void;
}

type Result = { ok: true; value: PurchaseView } | { ok: false; error: unknown };

/** A batch's answers, and the calls whose key was written with their outcome (stored once the batch has committed). */
export interface Written {
  results: Result[];
  stored: Set<number>;
}

/**
 * Thrown inside a batch's transaction when a key it wrote was stored already: the batch re-runs with the keys read
 * first.
 */
export class KeysTaken extends Error {
  constructor() {
    super('keys taken');
  }
}

/**
 * How a batch runs: `allot` locks its pools first and allots in arrival order; `readKeys` reads its stored keys first.
 */
export interface Mode {
  allot: boolean;
  readKeys: boolean;
}

/**
 * Re-runs of a batch whose keys were taken between its read and its write (another request's insert committed
 * meanwhile).
 */
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
export async function runOneBatch(
  em: EntityManager,
  batch: Call[],
  mode: Mode,
  clock: Clock,
  shortPools: Set<string>,
): Promise<Written> {
  const now = clock.now();
  const results = new Array<Result>(batch.length);
  // The keys first: duplicates in the batch, and (when re-run for a stored key) the stored rows, read with one
  // statement. A replay or a refused key settles its call here; the others' keys are written with the batch below.
  const keyed = batch.flatMap((c, index) => (c.ctx.idempotency ? [{ index, key: c.ctx.idempotency }] : []));
  const claims = new Array<ClaimResult | undefined>(batch.length);
  if (keyed.length) {
    const got = await settleKeys(
      em,
      keyed.map((k) => k.key),
      now,
      mode.readKeys,
    );
    keyed.forEach((k, j) => {
      const c = got[j]!;
      claims[k.index] = c;
      if (c.kind === 'refused') results[k.index] = { ok: false, error: c.error };
      if (c.kind === 'replay') results[k.index] = { ok: false, error: new Replay(c.response) };
    });
  }
  const live = batch.flatMap((call, index) => (results[index] ? [] : [{ call, index }]));
  const ids = [...new Set(live.map((l) => l.call.quoteId))].sort();
  // One statement locks every quote of the batch, in id order (no deadlock between batches of several processes),
  // and reads their tiers, shops and events.
  const locked = await lockQuotesWithOffers(em, ids);
  // Each call's rate-limit charge ran beside the statement above: a refused call fails now, before anything is
  // written for it (its key neither) or replayed to it.
  const charges = await Promise.all(
    batch.map((c) =>
      c.ctx.shared?.charged
        ? c.ctx.shared.charged.then(
            () => undefined,
            (err: unknown) => err ?? new Error('charge failed'),
          )
        : Promise.resolve(undefined),
    ),
  );
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
      const found = offers.quotes.get(call.quoteId);
      if (usedBy.has(call.quoteId)) {
        requireAccess(call.ctx.principal, found, 'quote', call.quoteId); // another caller's: not found
        repeats.push({ index, quoteId: call.quoteId });
        continue;
      }
      // The one reserve rule (reservations.ts), on what the batch locked and read.
      const ctx = { principal: call.ctx.principal, em, clock };
      const decided = await decideReserve(ctx, call.quoteId, found, (quote) => offerIn(offers, quote), now);
      if (decided.kind === 'own') {
        // The caller's own earlier hold, as it is now (natural idempotency): its answer, stored under its key too.
        const own = await requireReservation(em, call.ctx.principal, decided.reservationId);
        results[index] = { ok: true, value: await loadPurchaseView(em, own) };
        continue;
      }
      usedBy.set(decided.quote.id, '');
      winnerOf.set(decided.quote.id, index);
      candidates.push({ index, quote: decided.quote, shop: decided.shop });
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      results[index] = { ok: false, error: err };
    }
  }

  // Discount codes (only quotes that carry one): their rows locked after the quotes and before the pools, the uses
  // decided in arrival order; a call refused here takes no place (discount-uses.ts).
  const coded = await decideDiscountUses(em, candidates, now);
  for (const { index, error } of coded.refused) results[index] = { ok: false, error };
  // Allot mode (a pool was short): each pool row is locked now and its places are handed out in arrival order.
  let granted = coded.kept;
  if (mode.allot || candidates.some((c) => placesPerPool(c.quote).some((t) => shortPools.has(t.poolId)))) {
    const allotted = await allotInArrivalOrder(em, granted);
    granted = allotted.granted;
    for (const { index, error } of allotted.soldOut) results[index] = { ok: false, error };
    for (const poolId of allotted.roomy) shortPools.delete(poolId); // back to the optimistic path
  }

  const taken = new Map<string, number>();
  const holds: ReservationRow[] = [];
  for (const { index, quote, shop } of granted) {
    const reservation = holdOf(quote, shop, now);
    holds.push(reservation);
    usedBy.set(quote.id, reservation.id);
    // Every line's pool (a multi-line hold takes from several; one tier: its own pool).
    for (const t of placesPerPool(quote)) taken.set(t.poolId, (taken.get(t.poolId) ?? 0) + t.quantity);
    // A new hold has no payment or order yet: its view is the reservation alone.
    results[index] = { ok: true, value: { reservation: reservationView(reservation, null) } };
  }
  await writeDiscountUses(
    em,
    granted.map((g) => ({ reservationId: usedBy.get(g.quote.id)!, quote: g.quote })),
    now,
  );
  for (const { index, quoteId } of repeats) {
    const reservationId = usedBy.get(quoteId);
    const winner = results[winnerOf.get(quoteId)!]!;
    // An earlier call of this batch reserved the quote: the rule decides on the quote as reserved by it (the caller's
    // own hold: the same answer; anyone else's: `quote_already_used`); when that call was refused, so is this one.
    if (!reservationId) {
      results[index] = winner;
      continue;
    }
    try {
      const reserved = { ...offers.quotes.get(quoteId)!, reservationId };
      const ctx = { principal: batch[index]!.ctx.principal, em, clock };
      await decideReserve(ctx, quoteId, reserved, () => offerIn(offers, reserved), now);
      results[index] = winner;
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      results[index] = { ok: false, error: err };
    }
  }
  // Every key of the batch is written once, here, with its call's outcome (a hold, the caller's own hold, or a refusal
  // kept under keys), so its replay commits with the batch; an outcome not kept (a refusal for load) leaves no key.
  const keys: KeyWrite[] = [];
  const stored = new Set<number>();
  for (const [index, call] of batch.entries()) {
    const key = call.ctx.idempotency;
    if (!key || claims[index]?.kind !== 'claimed') continue;
    const response = outcomeOf(call, results[index]!);
    if (!response) continue;
    keys.push(key.rowWith(response));
    stored.add(index);
  }
  // One statement inserts the holds, marks their quotes used, takes the pool's places and writes the keys. A pool
  // short of places rolls the batch back and it re-runs in allot mode; a key stored already, with its keys read first.
  const takes = [...taken].sort(([a], [b]) => a.localeCompare(b)).map(([poolId, quantity]) => ({ poolId, quantity }));
  const written =
    holds.length || keys.length ? await writeBatch(em, { holds, keys, takes }, now) : { short: [], keysTaken: false };
  if (written.short.length) throw new ShortPool(written.short);
  if (written.keysTaken) throw new KeysTaken();
  return { results, stored };
}

/** The outcome a call's key is stored with: its answer as the tool gives it (`SharedCall.finish`), or a refusal. */
function outcomeOf(call: Call, r: Result): StoredResponse | undefined {
  if (r.ok) {
    if (!call.ctx.shared) throw new Error('A batched call with a key has no SharedCall to finish its answer.');
    const done = call.ctx.shared.finish(r.value);
    return { status: done.status, body: done.output };
  }
  const err = r.error;
  const kept = err instanceof ToolError && keepsOutcome(err.status, err.code);
  return kept ? { status: err.status, body: err.toBody() } : undefined;
}
