/**
 * The reserve batch's idempotency keys settled before anything is written for them (`settleKeys`): the keys' rules are
 * those of src/storage/idempotency-store.ts, applied to a whole batch in at most one read.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundSql } from './database.ts';
import { ToolError } from '../kernel/errors.ts';
import { isStale, type KeyClaim, type Row, type StoredResponse } from './idempotency-store.ts';

/**
 * What became of one key in the batch: the key is this request's (written with the batch's write, `KeyWrite`), or its
 * stored outcome is replayed, or the call is refused.
 */
export type ClaimResult =
  { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse } | { kind: 'refused'; error: ToolError };

/**
 * Settles the reserve batch's keys (src/domain/purchase/reserve-batcher.ts) before anything is written for them. Per
 * claim, in order: the first of the same (scope, key) in `claims` is this request's, and a later duplicate is refused
 * `idempotency_in_flight`. With `read` false (the batch's first try) nothing is read: every key is taken to be new, and
 * the batch's write inserts it with the outcome (`writeBatch`), once; a key that turns out to be stored already makes
 * that insert come short, and the batch re-runs with `read` true. With `read` true the stored rows are read first (one
 * statement, no lock): a key already done replays its stored response, or is refused `idempotency_conflict` when the
 * request differs; a key in flight is refused `idempotency_in_flight`; a stale row (past 24 h, or in flight past
 * IN_FLIGHT_STALE_MS) is taken over by the write.
 */
export async function settleKeys(
  em: EntityManager,
  claims: readonly KeyClaim[],
  now: Date,
  read: boolean,
): Promise<ClaimResult[]> {
  const results = new Array<ClaimResult>(claims.length);
  const first = new Map<string, number>();
  claims.forEach((c, i) => {
    const id = `${c.scope}\u0000${c.key}`;
    if (first.has(id))
      results[i] = {
        kind: 'refused',
        error: new ToolError('idempotency_in_flight', undefined, { idempotencyKey: c.key }, 1),
      };
    else first.set(id, i);
  });
  const existing = new Map<string, Row>();
  if (read && first.size) {
    const keys = [...first.values()].map((i) => ({ scope: claims[i]!.scope, key: claims[i]!.key }));
    const found = await boundSql<Row & { scope: string; key: string }>(
      em,
      `select k.scope, k.key, k.request_hash, k.state, k.status, k.response, k.created_at
         from idempotency_keys k join jsonb_to_recordset($1::jsonb) as v(scope text, key text) on k.scope = v.scope and k.key = v.key
        where k.scope = any($2::text[]) and k.key = any($3::text[])`,
      // The keys again as arrays: the planner then reaches the rows by their key, not by a scan of the table.
      [JSON.stringify(keys), keys.map((k) => k.scope), keys.map((k) => k.key)],
    );
    for (const r of found) if (!isStale(r, now)) existing.set(`${r.scope}\u0000${r.key}`, r);
  }
  for (const [id, i] of first) {
    const c = claims[i]!;
    const row = existing.get(id);
    if (!row) results[i] = { kind: 'claimed' };
    else if (row.request_hash !== c.requestHash && row.request_hash !== c.legacyHash?.())
      results[i] = {
        kind: 'refused',
        error: new ToolError('idempotency_conflict', undefined, { idempotencyKey: c.key }),
      };
    else if (row.state === 'in_flight')
      results[i] = {
        kind: 'refused',
        error: new ToolError('idempotency_in_flight', undefined, { idempotencyKey: c.key }, 1),
      };
    else results[i] = { kind: 'replay', response: { status: row.status ?? 200, body: row.response } };
  }
  return results;
}
