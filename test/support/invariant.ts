/**
 * The inventory invariant, checked straight in the database: per pool, availableCount + held + sold = capacity (sold:
 * less places refunds returned). Per line of a multi-line hold: `reservation_pool_lines` (migration 0033).
 */
import assert from 'node:assert/strict';
import type { Database } from '../../src/storage/database.ts';

export interface PoolCounts {
  capacity: number;
  available: number;
  /** Places in held or confirming reservations. */
  held: number;
  /** Places in completed reservations, less those refunds gave back to the pool (`returned_count`). */
  sold: number;
}

export async function poolCounts(db: Database, poolId: string): Promise<PoolCounts> {
  const [row] = await db.execute<{ capacity: number; available: number; held: string; sold: string }>(
    `select p.capacity, p.available_count as available,
            coalesce(sum(r.quantity) filter (where r.state in ('held', 'confirming')), 0) as held,
            coalesce(sum(r.quantity - r.returned_count) filter (where r.state = 'completed'), 0) as sold
       from pools p left join reservation_pool_lines r on r.pool_id = p.id
      where p.id = ? group by p.id`,
    [poolId],
  );
  assert.ok(row, `no pool ${poolId}`);
  return { capacity: row.capacity, available: row.available, held: Number(row.held), sold: Number(row.sold) };
}

/** Asserts availableCount + held + sold = capacity (and 0 ≤ availableCount); returns the counts. */
export async function assertInvariant(db: Database, poolId: string): Promise<PoolCounts> {
  const c = await poolCounts(db, poolId);
  assert.ok(c.available >= 0, `pool ${poolId} availableCount ${c.available} < 0`);
  assert.equal(c.available + c.held + c.sold, c.capacity, `pool ${poolId} invariant broken: ${JSON.stringify(c)}`);
  return c;
}
