/**
 * Several lines in one purchase (docs/purchase-spine.md): a quote or hold's lines, and the places they take and give
 * back per pool. A single-tier row (`lines` null) is its own one line, and costs the same statements as before.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PurchaseLineRow } from '../../storage/entities/purchase.ts';
import { returnPlaces, takePlaces } from './inventory.ts';
import { throwSoldOut } from './sold-out-hint.ts';

/** At most this many lines in one purchase. */
export const MAX_LINES = 20;
/** At most this many places in one purchase, over all its lines (one tier's own limit, as before). */
export const MAX_PLACES = 1000;

/** What a quote or hold carries that its lines are read from. */
export interface Lined {
  tierId: string;
  poolId: string;
  quantity: number;
  unitPriceMinor: number;
  lines?: PurchaseLineRow[] | null;
  returnedCount?: number;
}

/** The row's lines: its `lines`, or (single tier) the row's own tier, pool and quantity as one line. */
export function linesOf(row: Lined): PurchaseLineRow[] {
  if (row.lines?.length) return row.lines;
  const { tierId, poolId, quantity, unitPriceMinor } = row;
  const subtotalMinor = unitPriceMinor * quantity;
  return [{ tierId, poolId, quantity, unitPriceMinor, subtotalMinor, returnedCount: row.returnedCount ?? 0 }];
}

/** Places per pool over the row's lines (lines sharing a pool summed), in pool id order: the fixed lock order. */
export function placesPerPool(row: Lined): { poolId: string; quantity: number }[] {
  const per = new Map<string, number>();
  for (const l of linesOf(row)) per.set(l.poolId, (per.get(l.poolId) ?? 0) + l.quantity);
  return [...per].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([poolId, quantity]) => ({ poolId, quantity }));
}

/** The row's tiers on a pool. */
export function tiersOn(row: Lined, poolId: string): string[] {
  return linesOf(row)
    .filter((l) => l.poolId === poolId)
    .map((l) => l.tierId);
}

/** Takes every line's places, pool by pool in id order; `sold_out` when one pool is short (the caller rolls back). */
export async function takeAllOrThrow(em: EntityManager, row: Lined): Promise<void> {
  for (const { poolId, quantity } of placesPerPool(row))
    if ((await takePlaces(em, poolId, quantity)) === null)
      await throwSoldOut(em, tiersOn(row, poolId), poolId, quantity);
}

/**
 * Takes every line's places or none (a pool short: the places already taken go back in the same transaction);
 * false when one pool was short.
 */
export async function takeAll(em: EntityManager, row: Lined): Promise<boolean> {
  const taken: { poolId: string; quantity: number }[] = [];
  for (const take of placesPerPool(row)) {
    if ((await takePlaces(em, take.poolId, take.quantity)) === null) {
      for (const t of taken) await returnPlaces(em, t.poolId, t.quantity);
      return false;
    }
    taken.push(take);
  }
  return true;
}

/** Gives every line's places back to its pool, in pool id order. */
export async function returnAll(em: EntityManager, row: Lined): Promise<void> {
  for (const { poolId, quantity } of placesPerPool(row)) await returnPlaces(em, poolId, quantity);
}

/** The tier of each place, in line order (one tier: the row's tier, `quantity` times): a ticket per place. */
export function placeTiers(row: Lined): string[] {
  return linesOf(row).flatMap((l) => Array<string>(l.quantity).fill(l.tierId));
}

/** The lines' subtotals summed. */
export function subtotalOf(lines: readonly PurchaseLineRow[]): number {
  return lines.reduce((n, l) => n + l.subtotalMinor, 0);
}

/** A line on the wire (quotes and reservations). */
export function lineView(l: PurchaseLineRow) {
  return {
    tierId: l.tierId,
    poolId: l.poolId,
    quantity: l.quantity,
    unitPriceMinor: l.unitPriceMinor,
    subtotalMinor: l.subtotalMinor,
  };
}

/** `{ lines }` for a multi-line row's view, nothing for a single-tier row (whose answer stays as it was). */
export function linesField(row: { lines?: PurchaseLineRow[] | null }): { lines?: ReturnType<typeof lineView>[] } {
  return row.lines?.length ? { lines: row.lines.map(lineView) } : {};
}

/**
 * Gives `count` places of `tierId`'s line back to its pool (refunds with returnToPool), counting them on the line;
 * a single-tier row counts them on the row's `returnedCount` as before (the caller does).
 */
export async function returnTierPlaces(
  em: EntityManager,
  row: Lined & { lines?: PurchaseLineRow[] | null; returnedCount: number },
  perTier: ReadonlyMap<string, number>,
): Promise<void> {
  const lines = row.lines?.length ? row.lines : undefined;
  if (!lines) {
    let n = 0;
    for (const c of perTier.values()) n += c;
    await returnPlaces(em, row.poolId, n);
    return;
  }
  const next = lines.map((l) => ({ ...l }));
  const perPool = new Map<string, number>();
  for (const l of next) {
    const n = perTier.get(l.tierId) ?? 0;
    if (!n) continue;
    l.returnedCount = (l.returnedCount ?? 0) + n;
    perPool.set(l.poolId, (perPool.get(l.poolId) ?? 0) + n);
  }
  for (const poolId of [...perPool.keys()].sort()) await returnPlaces(em, poolId, perPool.get(poolId)!);
  row.lines = next;
}
