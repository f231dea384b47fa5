/**
 * Idempotency keys (contract.md): same key + same request within 24 h replays the stored response;
 * same key + different request is 422; a first request still running is 409 with Retry-After.
 * Keys are scoped to the caller. 5xx outcomes are not stored.
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
}

export type Claim = { kind: 'claimed' } | { kind: 'replay'; response: StoredResponse };

interface Row {
  request_hash: string;
  state: 'in_flight' | 'done';
  status: number | null;
  response: unknown;
  created_at: Date;
}

export class IdempotencyStore {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /** Claims (scope, key) for this request, or returns the stored response to replay. */
  async claim(scope: string, key: string, requestHash: string, now: Date): Promise<Claim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const inserted = await this.db.execute(
        `insert into idempotency_keys (scope, key, request_hash, state, created_at)
         values (?, ?, ?, 'in_flight', ?) on conflict do nothing returning key`,
        [scope, key, requestHash, now],
      );
      if (inserted.length) return { kind: 'claimed' };
      const [row] = await this.db.execute<Row>(
        'select request_hash, state, status, response, created_at from idempotency_keys where scope = ? and key = ?',
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
      if (row.request_hash !== requestHash) {
        throw new ToolError('idempotency_conflict', undefined, { idempotencyKey: key });
      }
      if (row.state === 'in_flight') {
        throw new ToolError('idempotency_in_flight', undefined, { idempotencyKey: key }, 1);
      }
      return { kind: 'replay', response: { status: row.status ?? 200, body: row.response } };
    }
    throw new ToolError('idempotency_in_flight', undefined, { idempotencyKey: key }, 1);
  }

  /** Stores the outcome; pass the handler's transaction so the outcome commits with the state change. */
  async complete(scope: string, key: string, response: StoredResponse, em?: EntityManager): Promise<void> {
    const sql = `update idempotency_keys set state = 'done', status = ?, response = ?::jsonb where scope = ? and key = ?`;
    const params = [response.status, JSON.stringify(response.body), scope, key];
    if (em) await em.getConnection().execute(sql, params, 'run', em.getTransactionContext());
    else await this.db.execute(sql, params);
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
