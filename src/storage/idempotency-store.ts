/**
 * Idempotency keys (contract.md): same key + same request within 24 h replays the stored response;
 * same key + different request is 422; a first request still running is 409 with Retry-After.
 * Keys are scoped to the caller. 5xx outcomes are not stored. A response marked `sealed` (it carries a secret: an API
 * key, an agent token, a session) is kept encrypted in `response_sealed`, bound to its scope and key, never in clear.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { boundSql, type Database } from './database.ts';
import { ToolError } from '../kernel/errors.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** An in-flight claim older than this is treated as abandoned by a crashed process. */
export const IN_FLIGHT_STALE_MS = 5 * 60 * 1000;

export interface StoredResponse {
  status: number;
  body: unknown;
  /** Keep the body sealed at rest (it holds a secret field); replay opens it. */
  sealed?: boolean;
}

/** Seals and opens replay bodies (the server secret's box for replays: `SecretBox` with its own purpose). */
export interface ReplaySealer {
  seal(plaintext: string, boundTo: string): string;
  open(sealed: string, boundTo: string): string | undefined;
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse };

interface Row {
  request_hash: string;
  state: 'in_flight' | 'done';
  status: number | null;
  response: unknown;
  response_sealed: string | null;
  created_at: Date;
}

const boundTo = (scope: string, key: string) => `idempotency ${scope} ${key}`;

export class IdempotencyStore {
  private readonly db: Database;
  private readonly sealer: ReplaySealer;
  constructor(db: Database, sealer: ReplaySealer) {
    this.db = db;
    this.sealer = sealer;
  }

  /**
   * Claims (scope, key) for this request, or returns the stored response to replay. `legacyHash`: the hash rows stored
   * by earlier versions hold (computed only when a stored row does not hold `requestHash`).
   */
  async claim(scope: string, key: string, requestHash: string, now: Date, legacyHash?: () => string): Promise<Claim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await this.db.execute(
        `insert into idempotency_keys (scope, key, request_hash, state, created_at)
         values (?, ?, ?, 'in_flight', ?) on conflict do nothing returning key`,
        [scope, key, requestHash, now],
      );
      if (inserted.length) return { kind: 'claimed' };
      const [row] = await this.db.execute<Row>(
        'select request_hash, state, status, response, response_sealed, created_at from idempotency_keys where scope = ? and key = ?',
        [scope, key],
      );
      if (!row) continue;
      const age = now.getTime() - new Date(row.created_at).getTime();
      const stale = age > IDEMPOTENCY_TTL_MS || (row.state === 'in_flight' && age > IN_FLIGHT_STALE_MS);
      if (stale) {
        await this.db.execute('delete from idempotency_keys where scope = ? and key = ? and created_at = ?', [
          scope,
          key,
          row.created_at,
        ]);
        continue;
      }
      if (row.request_hash !== requestHash && (legacyHash === undefined || row.request_hash !== legacyHash())) {
        throw new ToolError('idempotency_conflict', undefined, { idempotencyKey: key });
      }
      if (row.state === 'in_flight') {
        throw new ToolError('idempotency_in_flight', undefined, { idempotencyKey: key }, 1);
      }
      return { kind: 'replay', response: { status: row.status ?? 200, body: row.response_sealed === null ? row.response : this.openBody(scope, key, row.response_sealed) } };
    }
    throw new ToolError('idempotency_in_flight', undefined, { idempotencyKey: key }, 1);
  }

  /** Stores the outcome; pass the handler's transaction so the outcome commits with the state change. */
  async complete(scope: string, key: string, response: StoredResponse, em?: EntityManager): Promise<void> {
    const sql = `update idempotency_keys set state = 'done', status = ?, response = ?::jsonb, response_sealed = ? where scope = ? and key = ?`;
    const json = JSON.stringify(response.body);
    const params = response.sealed ? [response.status, null, this.sealer.seal(json, boundTo(scope, key)), scope, key] : [response.status, json, null, scope, key];
    if (em) await em.getConnection().execute(sql, params, 'run', em.getTransactionContext());
    else await this.db.execute(sql, params);
  }

  private openBody(scope: string, key: string, sealed: string): unknown {
    const opened = this.sealer.open(sealed, boundTo(scope, key));
    // The server refuses to start with another secret (src/storage/server-secret.ts), so this is a damaged row.
    if (opened === undefined) throw new Error('A stored idempotent response does not open with this server secret.');
    return JSON.parse(opened) as unknown;
  }

  /** Forgets a claim (5xx outcomes are not stored, so the client may retry). */
  async abandon(scope: string, key: string): Promise<void> {
    await this.db.execute(`delete from idempotency_keys where scope = ? and key = ? and state = 'in_flight'`, [scope, key]);
  }
}

/** One claimed key's outcome, stored with the batch that made it (src/storage/reserve-batch.ts). */
export interface Outcome {
  scope: string;
  key: string;
  response: StoredResponse;
}

/** A key to claim inside a shared transaction (the reserve batch): the caller's scope, the key, the request's hash. */
export interface KeyClaim {
  scope: string;
  key: string;
  requestHash: string;
  /**
   * The hash rows stored by earlier versions hold (a plain SHA-256 of the request), matched until they expire; computed
   * only for a stored row that does not hold `requestHash`.
   */
  legacyHash?: (() => string) | undefined;
}

/** What claiming one key inside a transaction gave: the key is this request's now, or its stored outcome, or a refusal. */
export type ClaimResult = { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse } | { kind: 'refused'; error: ToolError };

/**
 * Claims many keys with one statement inside `em`'s transaction (the reserve batch), so the claim commits with the
 * change and its outcome: there is no separate commit per request, and no other transaction ever sees the claim
 * in flight. Keys are inserted in (scope, key) order, so batches of several processes lock them in one order; a key
 * another open transaction is claiming waits for it, then reads its outcome. Per claim, in order: the first of the same
 * (scope, key) in `claims` is claimed (a stale row — past 24 h, or in flight past IN_FLIGHT_STALE_MS — is taken over);
 * a later duplicate is refused `idempotency_in_flight`; a key already done replays its stored response, or is refused
 * `idempotency_conflict` when the request differs; a key in flight elsewhere is refused `idempotency_in_flight`.
 */
export async function claimKeys(em: EntityManager, claims: readonly KeyClaim[], now: Date): Promise<ClaimResult[]> {
  const results: ClaimResult[] = new Array(claims.length);
  const first = new Map<string, number>();
  const unique: KeyClaim[] = [];
  claims.forEach((c, i) => {
    const id = `${c.scope}\u0000${c.key}`;
    if (first.has(id)) {
      results[i] = { kind: 'refused', error: new ToolError('idempotency_in_flight', undefined, { idempotencyKey: c.key }, 1) };
      return;
    }
    first.set(id, i);
    unique.push(c);
  });
  if (!unique.length) return results;
  const rows = JSON.stringify(unique.map((c) => ({ scope: c.scope, key: c.key, request_hash: c.requestHash })));
  const inserted = await boundSql<{ scope: string; key: string }>(
    em,
    `insert into idempotency_keys (scope, key, request_hash, state, created_at)
     select v.scope, v.key, v.request_hash, 'in_flight', $1::timestamptz
       from jsonb_to_recordset($2::jsonb) as v(scope text, key text, request_hash text) order by v.scope, v.key
     on conflict (scope, key) do update
        set request_hash = excluded.request_hash, state = 'in_flight', status = null, response = null, response_sealed = null, created_at = excluded.created_at
      where idempotency_keys.created_at < excluded.created_at - ($3::float8 * interval '1 millisecond')
         or (idempotency_keys.state = 'in_flight' and idempotency_keys.created_at < excluded.created_at - ($4::float8 * interval '1 millisecond'))
     returning scope, key`,
    [now.toISOString(), rows, IDEMPOTENCY_TTL_MS, IN_FLIGHT_STALE_MS],
  );
  const claimed = new Set(inserted.map((r) => `${r.scope}\u0000${r.key}`));
  const others = unique.filter((c) => !claimed.has(`${c.scope}\u0000${c.key}`));
  const existing = new Map<string, Row>();
  if (others.length) {
    const found = await boundSql<Row & { scope: string; key: string }>(
      em,
      `select k.scope, k.key, k.request_hash, k.state, k.status, k.response, k.created_at
         from idempotency_keys k join jsonb_to_recordset($1::jsonb) as v(scope text, key text) on k.scope = v.scope and k.key = v.key`,
      [JSON.stringify(others.map((c) => ({ scope: c.scope, key: c.key })))],
    );
    for (const r of found) existing.set(`${r.scope}\u0000${r.key}`, r);
  }
  for (const [id, i] of first) {
    const c = claims[i]!;
    if (claimed.has(id)) {
      results[i] = { kind: 'claimed' };
      continue;
    }
    const row = existing.get(id);
    if (row && row.request_hash !== c.requestHash && row.request_hash !== c.legacyHash?.()) results[i] = { kind: 'refused', error: new ToolError('idempotency_conflict', undefined, { idempotencyKey: c.key }) };
    else if (!row || row.state === 'in_flight') results[i] = { kind: 'refused', error: new ToolError('idempotency_in_flight', undefined, { idempotencyKey: c.key }, 1) };
    else results[i] = { kind: 'replay', response: { status: row.status ?? 200, body: row.response } };
  }
  return results;
}
