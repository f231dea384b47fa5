/**
 * The pool counter, the oversell arbiter. Places are taken with ONE conditional update (never a read
 * then a write), so concurrent reserves in any number of processes can never drive it below zero; the
 * pools CHECK constraint (0 ≤ available_count ≤ capacity) is the backstop.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from '../../storage/database.ts';
import { ToolError } from '../../kernel/errors.ts';

/** Takes `quantity` places inside the caller's transaction; returns what is left, or null when there are not enough. */
export async function takePlaces(em: EntityManager, poolId: string, quantity: number): Promise<number | null> {
  const rows = await sql<{ available_count: number }>(
    em,
    'update pools set available_count = available_count - ? where id = ? and available_count >= ? returning available_count',
    [quantity, poolId, quantity],
  );
  return rows[0]?.available_count ?? null;
}

/** Takes places or throws 409 `sold_out` with `details.available`. */
export async function takePlacesOrThrow(em: EntityManager, poolId: string, quantity: number): Promise<number> {
  const left = await takePlaces(em, poolId, quantity);
  if (left !== null) return left;
  throw new ToolError('sold_out', undefined, { available: await availableIn(em, poolId), requested: quantity });
}

/** Gives `quantity` places back; the caller's state change (e.g. held → released) must commit with it. */
export async function returnPlaces(em: EntityManager, poolId: string, quantity: number): Promise<void> {
  await sql(em, 'update pools set available_count = available_count + ? where id = ?', [quantity, poolId]);
}

/** The live available count of a pool (0 when it does not exist). */
export async function availableIn(em: EntityManager, poolId: string): Promise<number> {
  const rows = await sql<{ available_count: number }>(em, 'select available_count from pools where id = ?', [poolId]);
  return rows[0]?.available_count ?? 0;
}
