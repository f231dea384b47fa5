/**
 * `sold_out` from reserve (one tier or several lines, batched or direct) says `details.waitingList: true` when a tier
 * of the purchase on the short pool has its waiting list open, as quote's refusal does (`waitingListHint`). The flag
 * comes with the pool row the refusal already reads (`WAITING_TIERS`), so no statement is added on any path.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../../kernel/errors.ts';
import { sql } from '../../storage/database.ts';

/** A column of a `from pools` select: the ids of the pool's tiers whose waiting list is open. */
export const WAITING_TIERS =
  'array(select t.id from tiers t where (pools.event_id is null or t.event_id = pools.event_id) ' +
  'and t.pool_id = pools.id and t.waiting_list)';

/**
 * The refusal for a purchase short on a pool, given the purchase's tiers on that pool: with the waiting-list hint when
 * one of them has its list open.
 */
export function soldOutOf(
  tierIds: readonly string[],
  available: number,
  requested: number,
  waitingTiers: readonly string[] | null | undefined,
): ToolError {
  const open = tierIds.some((id) => waitingTiers?.includes(id));
  return new ToolError('sold_out', undefined, { available, requested, ...(open ? { waitingList: true } : {}) });
}

/** Throws the refusal for `tierIds` short on `poolId`, reading the pool's live count and open lists in one statement. */
export async function throwSoldOut(
  em: EntityManager,
  tierIds: readonly string[],
  poolId: string,
  requested: number,
): Promise<never> {
  const [pool] = await sql<{ available_count: number; waiting_tiers: string[] }>(
    em,
    `select available_count, ${WAITING_TIERS} as waiting_tiers from pools where id = ?`,
    [poolId],
  );
  throw soldOutOf(tierIds, pool?.available_count ?? 0, requested, pool?.waiting_tiers);
}
