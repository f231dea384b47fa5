/**
 * Idempotency keys' outcomes stored together, in one statement inside a shared transaction (a group of confirms,
 * src/domain/purchase/confirm-groups.ts): each key was claimed by its call (`CallKey.claim`), and its outcome commits
 * with the change it answers, as `CallKey.settle` inside a transaction would store it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundSql } from './database.ts';
import type { KeyWrite } from './idempotency-store.ts';

/** Stores each key's outcome (`CallKey.rowWith`) in `em`'s transaction, in one statement; then `CallKey.committed`. */
export async function storeKeyOutcomes(em: EntityManager, writes: readonly KeyWrite[]): Promise<void> {
  if (!writes.length) return;
  const rows = writes.map((w) => {
    // A confirm's answers hold no secret; a sealed outcome needs the sealer (IdempotencyStore.complete).
    if (!w.response || w.response.sealed) throw new Error('storeKeyOutcomes stores only unsealed outcomes.');
    return { scope: w.scope, key: w.key, status: w.response.status, response: w.response.body };
  });
  await boundSql(
    em,
    `update idempotency_keys k set state = 'done', status = j.status, response = j.response, response_sealed = null
       from jsonb_to_recordset($1::jsonb) as j(scope text, key text, status int, response jsonb)
      where k.scope = j.scope and k.key = j.key and k.scope = any($2::text[]) and k.key = any($3::text[])`,
    // The keys again as arrays: the planner then reaches the rows by their key, not by a scan of the table.
    [JSON.stringify(rows), rows.map((r) => r.scope), rows.map((r) => r.key)],
  );
}
