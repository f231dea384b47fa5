/**
 * Idempotency keys claimed together, in flight, inside a shared transaction (a first-step group of confirms,
 * src/domain/purchase/first-step-groups.ts): one statement claims every new key, and one more (only when some key is
 * stored already) reads what the others hold, as `IdempotencyStore.claim` decides for one key.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ToolError } from '../kernel/errors.ts';
import { boundSql } from './database.ts';
import { IN_FLIGHT_STALE_MS, IDEMPOTENCY_TTL_MS, type KeyClaim } from './idempotency-store.ts';
import { settleKeys, type ClaimResult } from './key-settle.ts';

/**
 * Claims `claims` in `em`'s transaction, in flight (their calls' outcomes are stored later, `CallKey.settle` or a
 * confirm group). Per claim: `claimed` (the row is written, in flight), a stored outcome to replay, a refusal
 * (`idempotency_conflict`, `idempotency_in_flight`; a later duplicate of a key in `claims` is in flight behind the
 * first when that one claimed it, else answered by the stored row), or undefined when the row changed between the
 * statements (the call claims its key on its own). Keys are written in (scope, key)
 * order, as every batch writes them; a stale row (past 24 h, or in flight past IN_FLIGHT_STALE_MS) is taken over.
 */
export async function claimKeysInFlight(
  em: EntityManager,
  claims: readonly KeyClaim[],
  now: Date,
): Promise<(ClaimResult | undefined)[]> {
  const results = new Array<ClaimResult | undefined>(claims.length);
  const first = new Map<string, number>();
  const later: { i: number; id: string }[] = [];
  claims.forEach((c, i) => {
    const id = `${c.scope}\u0000${c.key}`;
    if (!first.has(id)) first.set(id, i);
    else later.push({ i, id });
  });
  const rows = [...first.values()].map((i) => ({
    scope: claims[i]!.scope,
    key: claims[i]!.key,
    request_hash: claims[i]!.requestHash,
  }));
  const inserted = await boundSql<{ scope: string; key: string }>(
    em,
    `insert into idempotency_keys (scope, key, request_hash, state, created_at)
     select v.scope, v.key, v.request_hash, 'in_flight', $2::timestamptz
       from jsonb_to_recordset($1::jsonb) as v(scope text, key text, request_hash text)
      order by v.scope, v.key
     on conflict (scope, key) do update
        set request_hash = excluded.request_hash, state = 'in_flight', status = null, response = null,
            response_sealed = null, created_at = excluded.created_at
      where idempotency_keys.created_at < excluded.created_at - ($3::float8 * interval '1 millisecond')
         or (idempotency_keys.state = 'in_flight'
             and idempotency_keys.created_at < excluded.created_at - ($4::float8 * interval '1 millisecond'))
     returning scope, key`,
    [JSON.stringify(rows), now.toISOString(), IDEMPOTENCY_TTL_MS, IN_FLIGHT_STALE_MS],
  );
  const taken = new Set(inserted.map((r) => `${r.scope}\u0000${r.key}`));
  const stored: number[] = [];
  for (const [id, i] of first) {
    if (taken.has(id)) results[i] = { kind: 'claimed' };
    else stored.push(i);
  }
  if (stored.length) {
    const read = await settleKeys(
      em,
      stored.map((i) => claims[i]!),
      now,
      true,
    );
    // `claimed` here: the row was gone or stale when read, though the insert did not take it; the call claims alone.
    stored.forEach((i, j) => (results[i] = read[j]!.kind === 'claimed' ? undefined : read[j]));
  }
  // A later duplicate: in flight behind the first when the first claimed the key; else what the stored row answers it.
  for (const { i, id } of later) {
    const c = claims[i]!;
    if (results[first.get(id)!]?.kind === 'claimed')
      results[i] = {
        kind: 'refused',
        error: new ToolError('idempotency_in_flight', undefined, { idempotencyKey: c.key }, 1),
      };
    else {
      const [read] = await settleKeys(em, [c], now, true);
      results[i] = read!.kind === 'claimed' ? undefined : read;
    }
  }
  return results;
}
