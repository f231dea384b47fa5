/**
 * Named prepared statements for the statements a server sends again and again (issue #35). Every statement sent with
 * bind parameters (`$1`, `$2`, …: the ORM's queries and `boundSql`) is parsed, analysed and planned by PostgreSQL
 * anew each time unless it is sent as a named prepared statement; on the purchase path that work was about half of
 * PostgreSQL's CPU for a quote (docs/performance.md). So a text seen twice gets a name (a hash of the text), and each
 * pooled connection parses it once and from then on only binds and executes it (PostgreSQL plans it per call the first
 * five times, then keeps a generic plan when that is no worse).
 *
 * Bounded: at most `maxStatements` texts get a name (each connection keeps a parsed statement and its plan per name),
 * and at most four times as many texts are counted; others run unnamed, as before. A text whose prepared statement a
 * schema change invalidated in a way PostgreSQL refuses to re-plan (`cached plan must not change result type`, when a
 * table's columns change under a live server) runs unnamed from then on: outside a transaction it is sent again at
 * once, and inside one the transaction fails and its call is answered 503 `unavailable` with Retry-After.
 * `DATABASE_PREPARED_STATEMENTS=off` turns it off (a connection pooler in transaction mode older than PgBouncer 1.21
 * cannot carry named statements).
 */
import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';

/** How many statement texts get a name when no bound is given. */
export const DEFAULT_MAX_PREPARED = 200;

/** SQLSTATE of `cached plan must not change result type` (feature_not_supported). */
const PLAN_CHANGED = '0A000';

type QueryFn = (...args: unknown[]) => unknown;

/** Which texts are named, shared by every connection of one pool. */
export class StatementNames {
  /** Per text: how often seen (while unnamed), its name, or null once refused. */
  private readonly texts = new Map<string, number | string | null>();
  private named = 0;
  private readonly maxStatements: number;

  constructor(maxStatements: number = DEFAULT_MAX_PREPARED) {
    this.maxStatements = maxStatements;
  }

  /** The name to send `text` under, or undefined to send it unnamed. */
  nameOf(text: string): string | undefined {
    const seen = this.texts.get(text);
    if (typeof seen === 'string') return seen;
    if (seen === null) return undefined;
    if (seen === undefined) {
      if (this.texts.size < this.maxStatements * 4) this.texts.set(text, 1);
      return undefined;
    }
    if (this.named >= this.maxStatements) return undefined;
    const name = `t_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    this.texts.set(text, name);
    this.named++;
    return name;
  }

  /** `text` is sent unnamed from now on (its statement cannot be re-planned after a schema change). */
  refuse(text: string): void {
    this.texts.set(text, null);
  }

  /** How many texts are named now (for tests and the bench). */
  get size(): number {
    return this.named;
  }
}

/**
 * Sends the repeated statements of every connection `pool` opens as named prepared statements. Only promise-style
 * calls with a text and a non-empty parameter array are named; everything else (callbacks, query objects, statements
 * without parameters) passes through unchanged. The connection's own `query` is looked up at each call, so anything
 * that observes `Client.prototype.query` still sees every statement.
 */
export function prepareRepeatedStatements(pool: Pool, names: StatementNames): void {
  pool.on('connect', (client: PoolClient) => {
    const proto = Object.getPrototypeOf(client) as { query: QueryFn };
    Object.defineProperty(client, 'query', {
      configurable: true,
      writable: true,
      value(this: PoolClient, ...args: unknown[]): unknown {
        const [text, values, more] = args;
        const name =
          typeof text === 'string' && Array.isArray(values) && values.length > 0 && more === undefined
            ? names.nameOf(text)
            : undefined;
        if (!name) return proto.query.apply(this, args);
        const sent = proto.query.call(this, { name, text, values }) as Promise<unknown>;
        return sent.catch((err: unknown) => {
          if ((err as { code?: unknown } | null)?.code !== PLAN_CHANGED) throw err;
          names.refuse(text as string);
          // Outside a transaction nothing was done: the statement runs again, unnamed. Inside one, the transaction
          // has failed and its caller is answered 503 with Retry-After (Database.mapDatabaseError).
          if (this.getTransactionStatus() === 'I') return proto.query.call(this, text, values);
          throw err;
        });
      },
    });
  });
}
