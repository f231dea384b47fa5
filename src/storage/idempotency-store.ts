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

export interface Row {
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
      const inserted = await this.db.bound(
        `insert into idempotency_keys (scope, key, request_hash, state, created_at)
         values ($1, $2, $3, 'in_flight', $4) on conflict do nothing returning key`,
        [scope, key, requestHash, now],
      );
      if (inserted.length) return { kind: 'claimed' };
      const [row] = await this.db.bound<Row>(
        'select request_hash, state, status, response, response_sealed, created_at from idempotency_keys where scope = $1 and key = $2',
        [scope, key],
      );
      if (!row) continue;
      if (isStale(row, now)) {
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
      return {
        kind: 'replay',
        response: {
          status: row.status ?? 200,
          body: row.response_sealed === null ? row.response : this.openBody(scope, key, row.response_sealed),
        },
      };
    }
    throw new ToolError('idempotency_in_flight', undefined, { idempotencyKey: key }, 1);
  }

  /** Stores the outcome; pass the handler's transaction so the outcome commits with the state change. */
  async complete(scope: string, key: string, response: StoredResponse, em?: EntityManager): Promise<void> {
    const sql = `update idempotency_keys set state = 'done', status = $1, response = $2::jsonb, response_sealed = $3 where scope = $4 and key = $5`;
    const json = JSON.stringify(response.body);
    const params = response.sealed
      ? [response.status, null, this.sealer.seal(json, boundTo(scope, key)), scope, key]
      : [response.status, json, null, scope, key];
    if (em) await boundSql(em, sql, params);
    else await this.db.bound(sql, params);
  }

  private openBody(scope: string, key: string, sealed: string): unknown {
    const opened = this.sealer.open(sealed, boundTo(scope, key));
    // The server refuses to start with another secret (src/storage/server-secret.ts), so this is a damaged row.
    if (opened === undefined) throw new Error('A stored idempotent response does not open with this server secret.');
    return JSON.parse(opened) as unknown;
  }

  /** Forgets a claim (5xx outcomes are not stored, so the client may retry). */
  async abandon(scope: string, key: string): Promise<void> {
    await this.db.bound(`delete from idempotency_keys where scope = $1 and key = $2 and state = 'in_flight'`, [
      scope,
      key,
    ]);
  }

  /** One call's key (`CallKey`): what the orchestrator passes down in the call's context. */
  forCall(claim: KeyClaim, sealed: boolean): CallKey {
    return new CallKey(this, claim, sealed);
  }
}

/** Thrown where a call's key turns out to hold this request's outcome already: the call is answered with it. */
export class Replay extends Error {
  readonly response: StoredResponse;
  constructor(response: StoredResponse) {
    super('replay');
    this.response = response;
  }
}

/**
 * Whether an outcome is kept under its key: not a 5xx, nor a refusal for load (`rate_limited`), after which the same
 * key may be retried and succeed. The one rule for the unbatched and the batched (reserve) paths.
 */
export function keepsOutcome(status: number, code?: string): boolean {
  return status < 500 && code !== 'rate_limited';
}

/**
 * One call's idempotency key, and the one owner of what becomes of it. The orchestrator makes it (the caller's scope,
 * the key, the request's hash) and passes it down in the call's context. It is claimed either on its own (`claim`:
 * the unbatched path) or in a shared transaction with the change and the outcome (the reserve batch: `settleKeys`,
 * `rowWith`, `committed`); either way the call then `settle`s its outcome, which stores it, gives the key up, or does
 * nothing when the outcome is stored already or the key was never this call's. A stored outcome found on the way is
 * thrown as `Replay`. Its state is its own: no other layer reads or sets it.
 */
export class CallKey implements KeyClaim {
  readonly scope: string;
  readonly key: string;
  readonly requestHash: string;
  readonly legacyHash: (() => string) | undefined;
  private readonly store: IdempotencyStore;
  /** Whether outcomes are kept sealed (the tool's answers carry a secret field). */
  private readonly sealed: boolean;
  /** `open`: not this call's (yet); `claimed`: this call's row, in flight; `stored`: the outcome is stored. */
  private state: 'open' | 'claimed' | 'stored' = 'open';

  constructor(store: IdempotencyStore, claim: KeyClaim, sealed: boolean) {
    this.store = store;
    this.scope = claim.scope;
    this.key = claim.key;
    this.requestHash = claim.requestHash;
    this.legacyHash = claim.legacyHash;
    this.sealed = sealed;
  }

  /** Claims the key with a statement of its own; throws `Replay` when it already holds this request's outcome. */
  async claim(now: Date): Promise<void> {
    const claim = await this.store.claim(this.scope, this.key, this.requestHash, now, this.legacyHash);
    if (claim.kind === 'replay') throw new Replay(claim.response);
    this.state = 'claimed';
  }

  /** The row a shared transaction writes for this key with the call's outcome (`writeBatch`); then `committed`. */
  rowWith(response: StoredResponse): KeyWrite {
    const { scope, key, requestHash } = this;
    return { scope, key, requestHash, response: { ...response, sealed: this.sealed } };
  }

  /** A shared transaction claimed the key in flight (`claimKeysInFlight`) and committed: the key is this call's. */
  claimedTogether(): void {
    this.state = 'claimed';
  }

  /** The shared transaction that wrote `rowWith` committed: the outcome is stored. */
  committed(): void {
    this.state = 'stored';
  }

  /**
   * Settles the call's outcome when the key is this call's: kept (`keepsOutcome`) it is stored, in `em`'s transaction
   * when given (then the key stays this call's until that transaction commits, so a settle after a rollback still
   * settles it); otherwise the key is given up. Nothing once the outcome is stored, or when the key is not the call's.
   */
  async settle(outcome: { status: number; body: unknown }, em?: EntityManager): Promise<void> {
    if (this.state !== 'claimed') return;
    const code = (outcome.body as { code?: unknown } | null)?.code;
    if (!keepsOutcome(outcome.status, typeof code === 'string' && outcome.status >= 400 ? code : undefined)) {
      await this.store.abandon(this.scope, this.key);
      this.state = 'open';
      return;
    }
    await this.store.complete(this.scope, this.key, { ...outcome, sealed: this.sealed }, em);
    if (!em) this.state = 'stored';
  }
}

/**
 * A key the reserve batch writes (src/storage/reserve-batch.ts): with the call's outcome, or in flight for the
 * orchestrator to finish.
 */
export interface KeyWrite {
  scope: string;
  key: string;
  requestHash: string;
  /**
   * The outcome stored with the batch; undefined: the row is written in flight (the orchestrator completes or abandons
   * it).
   */
  response: StoredResponse | undefined;
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

/**
 * Whether a stored row no longer holds its key: past 24 h, or in flight past IN_FLIGHT_STALE_MS (a crashed process's).
 */
export function isStale(row: Pick<Row, 'state' | 'created_at'>, now: Date): boolean {
  const age = now.getTime() - new Date(row.created_at).getTime();
  return age > IDEMPOTENCY_TTL_MS || (row.state === 'in_flight' && age > IN_FLIGHT_STALE_MS);
}
