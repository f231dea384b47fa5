/**
 * Idempotency keys (contract.md): same key + same request within 24 h replays the stored response;
 * same key + different request is 422; a first request still running is 409 with Retry-After.
 * Keys are scoped to the caller. 5xx outcomes are not stored. A response marked `sealed` (it carries a secret: an API
 * key, an agent token, a session) is kept encrypted in `response_sealed`, bound to its scope and key, never in clear.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from './database.ts';
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

  /** Claims (scope, key) for this request, or returns the stored response to replay. `legacyHash`: the hash rows stored by earlier versions hold. */
  async claim(scope: string, key: string, requestHash: string, now: Date, legacyHash?: string): Promise<Claim> {
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
      if (row.request_hash !== requestHash && (legacyHash === undefined || row.request_hash !== legacyHash)) {
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

/** One claimed key's outcome, stored by `completeOutcomes`. */
export interface Outcome {
  scope: string;
  key: string;
  response: StoredResponse;
}

/** Stores many claimed keys' outcomes with one statement, inside the transaction that made their changes. */
export async function completeOutcomes(em: EntityManager, outcomes: readonly Outcome[]): Promise<void> {
  if (!outcomes.length) return;
  // Used by reserve, whose answers hold no secret; a sealed outcome would need the sealer (IdempotencyStore.complete).
  if (outcomes.some((o) => o.response.sealed)) throw new Error('completeOutcomes stores no sealed response.');
  const rows = outcomes.map((o) => ({ scope: o.scope, key: o.key, status: o.response.status, response: o.response.body }));
  await em.getConnection().execute(
    `update idempotency_keys k set state = 'done', status = v.status, response = v.response
       from jsonb_to_recordset(?::jsonb) as v(scope text, key text, status int, response jsonb)
      where k.scope = v.scope and k.key = v.key`,
    [JSON.stringify(rows)],
    'run',
    em.getTransactionContext(),
  );
}
