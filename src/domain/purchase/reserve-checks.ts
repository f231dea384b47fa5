/**
 * What the reserve batch (src/domain/purchase/reserve-batcher.ts) decides with beside the reserve rule (`decideReserve`
 * in reservations.ts): each quote's offer from the rows the batch locked and read, and, when a pool is short, which
 * calls get its places.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import type { EventRow, ShopRow, TierRow } from '../../storage/entities/catalog.ts';
import type { QuoteRow } from '../../storage/entities/purchase.ts';
import type { LockedQuote } from '../../storage/reserve-batch.ts';
import { sql } from '../../storage/database.ts';
import type { Offer } from './reservations.ts';
import { placesPerPool, tiersOn } from './lines.ts';
import { soldOutOf, WAITING_TIERS } from './sold-out-hint.ts';

/** What the batch read, by id: its locked quotes, their tiers, live shops and events. */
export interface Offers {
  quotes: Map<string, QuoteRow>;
  tiers: Map<string, TierRow>;
  shops: Map<string, ShopRow>;
  events: Map<string, EventRow>;
}

export function offersOf(locked: readonly LockedQuote[]): Offers {
  const byId = <T extends { id: string }>(rows: (T | undefined)[]) =>
    new Map(rows.flatMap((r) => (r ? [[r.id, r] as const] : [])));
  return {
    quotes: byId(locked.map((l) => l.quote)),
    tiers: byId(locked.map((l) => l.tier)),
    shops: byId(locked.map((l) => l.shop)),
    events: byId(locked.map((l) => l.event)),
  };
}

/** A quote's offer (tier, live shop, event) from what the batch read, for the reserve rule (`decideReserve`). */
export function offerIn(offers: Offers, quote: QuoteRow): Offer {
  const tier = offers.tiers.get(quote.tierId);
  return { tier, shop: offers.shops.get(quote.shopId), event: tier ? offers.events.get(tier.eventId) : undefined };
}

/**
 * Locks each pool of `candidates` (in id order, FOR NO KEY UPDATE: the lock the conditional update takes, so quotes
 * and holds of the pool may still be inserted meanwhile) and grants places in arrival order while they last. Returns
 * the granted calls, the refused ones (`sold_out` with the live count) and the pools that served every candidate with
 * room to spare.
 */
export async function allotInArrivalOrder<C extends { index: number; quote: QuoteRow }>(
  em: EntityManager,
  candidates: readonly C[],
): Promise<{ granted: C[]; soldOut: { index: number; error: ToolError }[]; roomy: string[] }> {
  // A multi-line quote takes from each of its lines' pools, all or none (one tier: its own pool).
  const takes = new Map(candidates.map((c) => [c, placesPerPool(c.quote)]));
  const poolIds = [...new Set(candidates.flatMap((c) => takes.get(c)!.map((t) => t.poolId)))].sort();
  const left = new Map<string, number>();
  const waiting = new Map<string, string[]>(); // the pool's tiers with an open waiting list, for the refusal's hint
  for (const poolId of poolIds) {
    const [row] = await sql<{ available_count: number; waiting_tiers: string[] }>(
      em,
      `select available_count, ${WAITING_TIERS} as waiting_tiers from pools where id = ? for no key update`,
      [poolId],
    );
    left.set(poolId, row?.available_count ?? 0);
    waiting.set(poolId, row?.waiting_tiers ?? []);
  }
  const granted: C[] = [];
  const soldOut: { index: number; error: ToolError }[] = [];
  const wanted = new Map<string, number>();
  for (const c of candidates) {
    const own = takes.get(c)!;
    for (const t of own) wanted.set(t.poolId, (wanted.get(t.poolId) ?? 0) + t.quantity);
    const short = own.find((t) => t.quantity > (left.get(t.poolId) ?? 0));
    if (!short) {
      for (const t of own) left.set(t.poolId, (left.get(t.poolId) ?? 0) - t.quantity);
      granted.push(c);
    } else {
      const available = left.get(short.poolId) ?? 0;
      soldOut.push({
        index: c.index,
        error: soldOutOf(tiersOn(c.quote, short.poolId), available, short.quantity, waiting.get(short.poolId)),
      });
    }
  }
  const roomy = poolIds.filter((poolId) => (left.get(poolId) ?? 0) >= (wanted.get(poolId) ?? 0));
  return { granted, soldOut, roomy };
}
